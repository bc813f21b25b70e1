/* An LD_PRELOAD probe: writes the environment as eglInitialize sees it (what the GL driver reads its cache settings
 * from) to $KILN_EGL_ENV_FILE, one NAME=value a line, then calls the real eglInitialize. */
#define _GNU_SOURCE
#include <EGL/egl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

extern char** environ;

EGLBoolean eglInitialize(EGLDisplay display, EGLint* major, EGLint* minor)
{
    const char* path = getenv("KILN_EGL_ENV_FILE");
    FILE* out = path ? fopen(path, "w") : NULL;
    if (out) {
        for (char** entry = environ; *entry; ++entry)
            fprintf(out, "%s\n", *entry);
        fclose(out);
    }
    EGLBoolean (*real)(EGLDisplay, EGLint*, EGLint*) =
        (EGLBoolean(*)(EGLDisplay, EGLint*, EGLint*))dlsym(RTLD_NEXT, "eglInitialize");
    return real ? real(display, major, minor) : EGL_FALSE;
}
