// kiln-demo-egl: a wayland-egl GLES window: a colour with a white square sliding across, drawn by the GPU driver.
#include "clients/client_window.hpp"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <wayland-egl.h>

#include <cstdio>
#include <cstring>

namespace {

constexpr const char* usage = R"(Usage: kiln-demo-egl [--size WxH] [--color RRGGBB] [--frames N] [--fullscreen]
A wayland-egl GLES window: a static colour with a white square sliding across.
)";

}  // namespace

int main(int argc, char** argv)
{
    using namespace kiln::clients;
    WindowOptions options;
    options.title = "kiln-demo-egl";
    if (!parse_window_options(argc, argv, options, usage, nullptr))
        return 2;

    ClientWindow window(options);
    std::string error;
    if (!window.connect(error)) {
        std::fprintf(stderr, "kiln-demo-egl: %s\n", error.c_str());
        return 1;
    }

    auto get_platform_display =
        reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    EGLDisplay display = get_platform_display
                             ? get_platform_display(EGL_PLATFORM_WAYLAND_KHR, window.display(), nullptr)
                             : eglGetDisplay(reinterpret_cast<EGLNativeDisplayType>(window.display()));
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, nullptr, nullptr)) {
        std::fprintf(stderr, "kiln-demo-egl: no EGL display for Wayland\n");
        return 1;
    }
    const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8,
                                     EGL_BLUE_SIZE, 8, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_NONE};
    EGLConfig config = nullptr;
    EGLint count = 0;
    if (!eglChooseConfig(display, config_attribs, &config, 1, &count) || count < 1) {
        std::fprintf(stderr, "kiln-demo-egl: no EGL config\n");
        return 1;
    }
    eglBindAPI(EGL_OPENGL_ES_API);
    const EGLint context_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
    wl_egl_window* native = wl_egl_window_create(window.surface(), window.width(), window.height());
    EGLSurface surface = eglCreateWindowSurface(display, config, reinterpret_cast<EGLNativeWindowType>(native), nullptr);
    if (context == EGL_NO_CONTEXT || surface == EGL_NO_SURFACE || !eglMakeCurrent(display, surface, surface, context)) {
        std::fprintf(stderr, "kiln-demo-egl: cannot create the EGL window surface\n");
        return 1;
    }
    // The window's frame callbacks pace drawing; eglSwapBuffers must not block on its own.
    eglSwapInterval(display, 0);

    const float r = static_cast<float>((options.color >> 16) & 0xff) / 255.0f;
    const float g = static_cast<float>((options.color >> 8) & 0xff) / 255.0f;
    const float b = static_cast<float>(options.color & 0xff) / 255.0f;
    int32_t current_w = window.width();
    int32_t current_h = window.height();

    const int status = window.run([&](uint64_t frame) {
        if (window.width() != current_w || window.height() != current_h) {
            current_w = window.width();
            current_h = window.height();
            wl_egl_window_resize(native, current_w, current_h, 0, 0);
        }
        glViewport(0, 0, current_w, current_h);
        glDisable(GL_SCISSOR_TEST);
        glClearColor(r, g, b, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        const int32_t square = 48;
        const int32_t travel = std::max(1, current_w - square);
        glEnable(GL_SCISSOR_TEST);
        glScissor(static_cast<GLint>((frame * 8) % static_cast<uint64_t>(travel)), (current_h - square) / 2, square,
                  square);
        glClearColor(1, 1, 1, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        return eglSwapBuffers(display, surface) == EGL_TRUE;
    });

    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroySurface(display, surface);
    wl_egl_window_destroy(native);
    eglDestroyContext(display, context);
    eglTerminate(display);
    return status;
}
