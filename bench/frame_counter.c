// LD_PRELOAD shim for benchmark clients: counts every wl_surface.commit a process sends into a shared counter file.
//
// The runner reads $KILN_BENCH_COUNTER_DIR/commits.<pid> (one native uint64) before and after its measuring window,
// so any client (weston-simple-egl, whose commits come from Mesa's EGL) is counted the same way without changing it.
// Interposes wl_proxy_marshal_flags, through which libwayland >= 1.20 sends every request (the generated inline
// request wrappers and Mesa both call it), then forwards to the public wl_proxy_marshal_array_flags.
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client-core.h>
#include <wayland-util.h>

enum { max_args = 20, wl_surface_commit_opcode = 6 };

static uint64_t* commit_counter;
static pthread_once_t counter_once = PTHREAD_ONCE_INIT;

static void open_counter(void)
{
    const char* dir = getenv("KILN_BENCH_COUNTER_DIR");
    if (!dir)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/commits.%d", dir, (int)getpid());
    const int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (ftruncate(fd, sizeof(uint64_t)) == 0) {
        void* map = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (map != MAP_FAILED)
            commit_counter = map;
    }
    close(fd);
}

__attribute__((visibility("default"))) struct wl_proxy* wl_proxy_marshal_flags(struct wl_proxy* proxy, uint32_t opcode,
                                                                              const struct wl_interface* interface,
                                                                              uint32_t version, uint32_t flags, ...)
{
    // libwayland 1.23 has no wl_proxy_get_interface; a wl_proxy begins with its wl_object, whose first member is
    // the interface (the layout every libwayland since 1.0 keeps).
    const struct wl_interface* own = *(const struct wl_interface* const*)proxy;
    const char* signature = own->methods[opcode].signature;
    union wl_argument args[max_args];
    memset(args, 0, sizeof args);
    va_list ap;
    va_start(ap, flags);
    // The same walk libwayland does: one argument per type letter; '?' (nullable) and digits (since-version) are not.
    int n = 0;
    for (const char* s = signature; *s && n < max_args; ++s) {
        switch (*s) {
        case 'i': args[n++].i = va_arg(ap, int32_t); break;
        case 'u': args[n++].u = va_arg(ap, uint32_t); break;
        case 'f': args[n++].f = va_arg(ap, wl_fixed_t); break;
        case 's': args[n++].s = va_arg(ap, const char*); break;
        case 'o': args[n++].o = va_arg(ap, struct wl_object*); break;
        case 'n': args[n++].o = va_arg(ap, struct wl_object*); break;
        case 'a': args[n++].a = va_arg(ap, struct wl_array*); break;
        case 'h': args[n++].h = va_arg(ap, int32_t); break;
        default: break;
        }
    }
    va_end(ap);
    if (opcode == wl_surface_commit_opcode && strcmp(own->name, "wl_surface") == 0) {
        pthread_once(&counter_once, open_counter);
        if (commit_counter)
            __atomic_add_fetch(commit_counter, 1, __ATOMIC_RELAXED);
    }
    return wl_proxy_marshal_array_flags(proxy, opcode, interface, version, flags, args);
}
