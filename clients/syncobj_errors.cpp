// Each --error mode of kiln-syncobj-client: the shortest request sequence that breaks one rule of linux-drm-syncobj-v1.
#include "clients/syncobj_errors.hpp"

#include "clients/shm_buffer.hpp"
#include "clients/syncobj_timeline.hpp"

#include <drm_fourcc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace kiln::clients {
namespace {

constexpr std::array modes = {"surface-exists",   "invalid-timeline", "no-surface",       "unsupported-buffer",
                              "no-buffer",        "no-release-point", "no-acquire-point", "conflicting-points"};

wl_buffer* dmabuf_buffer(const SyncobjErrorCase& c, std::unique_ptr<DmabufAllocation>& memory, std::string& error)
{
    memory = c.allocator.allocate(static_cast<uint32_t>(c.width), static_cast<uint32_t>(c.height),
                                  DRM_FORMAT_XRGB8888, error);
    if (!memory)
        return nullptr;
    zwp_linux_buffer_params_v1* params = zwp_linux_dmabuf_v1_create_params(c.dmabuf);
    zwp_linux_buffer_params_v1_add(params, memory->fd, 0, memory->offset, memory->stride, 0, 0);
    wl_buffer* buffer = zwp_linux_buffer_params_v1_create_immed(params, c.width, c.height, DRM_FORMAT_XRGB8888, 0);
    zwp_linux_buffer_params_v1_destroy(params);
    return buffer;
}

}  // namespace

bool is_syncobj_error_mode(const std::string& mode)
{
    for (const char* m : modes)
        if (mode == m)
            return true;
    return false;
}

bool report_connection_error(wl_display* display)
{
    const int code = wl_display_get_error(display);
    if (code == 0)
        return false;
    if (code == EPROTO) {
        const wl_interface* interface = nullptr;
        uint32_t id = 0;
        const uint32_t error = wl_display_get_protocol_error(display, &interface, &id);
        std::printf("protocol error: interface=%s code=%u id=%u\n", interface ? interface->name : "?", error, id);
    } else {
        std::printf("connection error: %s\n", std::strerror(code));
    }
    std::fflush(stdout);
    return true;
}

int provoke_syncobj_error(const SyncobjErrorCase& c, const std::string& mode)
{
    std::string error;
    auto timeline = SyncobjTimeline::create(c.drm_fd, error);
    if (!timeline) {
        std::fprintf(stderr, "kiln-syncobj-client: %s\n", error.c_str());
        return 1;
    }
    // Proxies made here are not destroyed: the connection is dead by the time they could be, and the process exits.
    auto import = [&]() {
        const int fd = timeline->export_fd();
        auto* imported = wp_linux_drm_syncobj_manager_v1_import_timeline(c.manager, fd);
        close(fd);
        return imported;
    };
    std::unique_ptr<DmabufAllocation> memory;
    std::unique_ptr<ShmBuffer> shm;

    if (mode == "surface-exists") {
        wp_linux_drm_syncobj_manager_v1_get_surface(c.manager, c.surface);
        wp_linux_drm_syncobj_manager_v1_get_surface(c.manager, c.surface);
    } else if (mode == "invalid-timeline") {
        const int memfd = memfd_create("not-a-syncobj", MFD_CLOEXEC);
        wp_linux_drm_syncobj_manager_v1_import_timeline(c.manager, memfd);
        close(memfd);
    } else if (mode == "no-surface") {
        wl_surface* doomed = wl_compositor_create_surface(c.compositor);
        auto* sync = wp_linux_drm_syncobj_manager_v1_get_surface(c.manager, doomed);
        auto* imported = import();
        wl_surface_destroy(doomed);
        wp_linux_drm_syncobj_surface_v1_set_acquire_point(sync, imported, 0, 1);
    } else {
        auto* sync = wp_linux_drm_syncobj_manager_v1_get_surface(c.manager, c.surface);
        auto* imported = import();
        wl_buffer* buffer = nullptr;
        if (mode == "unsupported-buffer") {
            shm = ShmBuffer::create(c.shm, c.width, c.height, error);
            buffer = shm ? shm->buffer() : nullptr;
        } else if (mode != "no-buffer") {
            buffer = dmabuf_buffer(c, memory, error);
        }
        if (!buffer && mode != "no-buffer") {
            std::fprintf(stderr, "kiln-syncobj-client: %s\n", error.c_str());
            return 1;
        }
        if (buffer) {
            wl_surface_attach(c.surface, buffer, 0, 0);
            wl_surface_damage_buffer(c.surface, 0, 0, c.width, c.height);
        }
        // Both points on one timeline; conflicting-points puts the release point on the acquire point itself.
        const uint32_t acquire = 1;
        const uint32_t release = mode == "conflicting-points" ? 1 : 2;
        if (mode != "no-acquire-point")
            wp_linux_drm_syncobj_surface_v1_set_acquire_point(sync, imported, 0, acquire);
        if (mode != "no-release-point")
            wp_linux_drm_syncobj_surface_v1_set_release_point(sync, imported, 0, release);
        wl_surface_commit(c.surface);
    }
    std::printf("sent the requests for %s\n", mode.c_str());
    std::fflush(stdout);
    wl_display_roundtrip(c.display);
    if (report_connection_error(c.display))
        return 0;
    std::printf("no protocol error\n");
    return 1;
}

}  // namespace kiln::clients
