// kiln-test-protocol-error: breaks a protocol rule on purpose and reports the protocol error kiln sends back.
// Prints "<interface> <code>" and exits 0 when the connection ended with a protocol error, 1 otherwise.
#include "xdg-shell-client-protocol.h"

#include <wayland-client.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace {

struct Globals {
    wl_compositor* compositor = nullptr;
    wl_shm* shm = nullptr;
    xdg_wm_base* wm_base = nullptr;
};

const wl_registry_listener registry_listener = {
    [](void* data, wl_registry* registry, uint32_t name, const char* interface, uint32_t) {
        auto* g = static_cast<Globals*>(data);
        if (std::strcmp(interface, wl_compositor_interface.name) == 0)
            g->compositor = static_cast<wl_compositor*>(wl_registry_bind(registry, name, &wl_compositor_interface, 4));
        else if (std::strcmp(interface, wl_shm_interface.name) == 0)
            g->shm = static_cast<wl_shm*>(wl_registry_bind(registry, name, &wl_shm_interface, 1));
        else if (std::strcmp(interface, xdg_wm_base_interface.name) == 0)
            g->wm_base = static_cast<xdg_wm_base*>(wl_registry_bind(registry, name, &xdg_wm_base_interface, 1));
    },
    [](void*, wl_registry*, uint32_t) {},
};

wl_buffer* make_buffer(wl_shm* shm, int32_t width, int32_t height, int32_t stride)
{
    const int fd = memfd_create("kiln-test", MFD_CLOEXEC);
    const int32_t size = 64 * 64 * 4;
    if (fd < 0 || ftruncate(fd, size) != 0)
        return nullptr;
    wl_shm_pool* pool = wl_shm_create_pool(shm, fd, size);
    wl_buffer* buffer = wl_shm_pool_create_buffer(pool, 0, width, height, stride, WL_SHM_FORMAT_XRGB8888);
    // The pool stays alive: an error posted on it then names its interface.
    close(fd);
    return buffer;
}

}  // namespace

int main(int argc, char** argv)
{
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode != "unconfigured-buffer" && mode != "shm-bad-stride") {
        std::fprintf(stderr, "usage: %s unconfigured-buffer|shm-bad-stride\n", argv[0]);
        return 2;
    }
    wl_display* display = wl_display_connect(nullptr);
    if (!display) {
        std::fprintf(stderr, "cannot connect\n");
        return 1;
    }
    Globals g;
    wl_registry* registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, &g);
    wl_display_roundtrip(display);
    if (!g.compositor || !g.shm || !g.wm_base) {
        std::fprintf(stderr, "missing globals\n");
        return 1;
    }

    if (mode == "unconfigured-buffer") {
        // xdg-shell: a buffer may not be attached before the first configure is acknowledged.
        wl_surface* surface = wl_compositor_create_surface(g.compositor);
        xdg_surface* xdg = xdg_wm_base_get_xdg_surface(g.wm_base, surface);
        xdg_surface_get_toplevel(xdg);
        wl_surface_attach(surface, make_buffer(g.shm, 64, 64, 256), 0, 0);
        wl_surface_commit(surface);
    } else {
        // wl_shm: a stride smaller than a row is invalid.
        make_buffer(g.shm, 64, 64, 16);
    }
    for (int i = 0; i < 50 && wl_display_roundtrip(display) >= 0; ++i) {
    }
    const int error = wl_display_get_error(display);
    if (error != EPROTO) {
        std::fprintf(stderr, "no protocol error (error %d)\n", error);
        return 1;
    }
    const wl_interface* interface = nullptr;
    const uint32_t code = wl_display_get_protocol_error(display, &interface, nullptr);
    std::printf("protocol-error %s %u\n", interface ? interface->name : "?", code);
    return 0;
}
