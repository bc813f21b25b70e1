// BufferProtocols: the buffer protocols and acquire points made in Server::start()'s order, and their --stats keys.
#include "compositor/protocols/buffer_protocols.hpp"

#include "compositor/bridge/render_bridge.hpp"
#include "compositor/output/sync/buffer_releases.hpp"

#include <optional>
#include <sys/stat.h>

namespace kiln::compositor {

void BufferProtocols::make_dmabuf(wl_display* display, wlr_backend* backend, RenderBridge& bridge,
                                  std::function<const wlr_drm_format_set*()> primary_formats)
{
    // kiln's own linux-dmabuf: clients' GPU buffers are sampled in place. Offered when the EGL display imports them.
    if (bridge.egl().profile().can_import_dmabuf()) {
        std::optional<dev_t> main_device = bridge.egl().profile().main_device;
        const int backend_fd = wlr_backend_get_drm_fd(backend);
        struct stat st {};
        if (backend_fd >= 0 && fstat(backend_fd, &st) == 0)
            main_device = st.st_rdev;  // clients allocate where the outputs scan out
        linux_dmabuf = std::make_unique<LinuxDmabufV1>(display, bridge, main_device, std::move(primary_formats));
        // wl_drm names a device node; without one (headless, nested) it is not offered.
        std::string node = drm_node_for(backend_fd);
        if (node.empty())
            node = bridge.egl().profile().device_path;
        if (!node.empty())
            wayland_drm = std::make_unique<WaylandDrm>(display, bridge, *linux_dmabuf, node);
    }
}

void BufferProtocols::make_sync(wl_display* display, wlr_backend* backend, CommitGate& gate, BufferReleases& releases)
{
    implicit_fences = std::make_unique<ImplicitFences>(gate, wl_display_get_event_loop(display));
    // Explicit sync where the device has timeline syncobjs (and clients can have dma-bufs to sync).
    if (linux_dmabuf) {
        drm_syncobj = LinuxDrmSyncobjV1::create(
            display, wlr_backend_get_drm_fd(backend), gate,
            [&releases](wlr_client_buffer* b) { return releases.of(b); });
        if (drm_syncobj)
            implicit_fences->set_explicit_sync(
                [&syncobj = drm_syncobj](wlr_surface* s) { return syncobj->is_explicit(s); });
    }
}

void BufferProtocols::report(Stats& stats, bool renderer_started, const CommitGate* gate) const
{
    if (renderer_started) {
        stats.set("buffers.dmabuf_buffers_created", linux_dmabuf ? linux_dmabuf->buffers_created() : 0);
        stats.set("buffers.dmabuf_requests_refused", linux_dmabuf ? linux_dmabuf->requests_refused() : 0);
        stats.set("protocols.linux_dmabuf_version", uint64_t{linux_dmabuf ? linux_dmabuf->version() : 0});
    }
    stats.set("fences.syncobj_offered", uint64_t{drm_syncobj != nullptr});
    if (drm_syncobj && gate) {
        using C = CommitGate::Condition;
        stats.set("fences.syncobj_acquire_waits", gate->waits(C::syncobj_acquire));
        stats.set("fences.syncobj_acquire_wait_ms_p50", percentile(gate->wait_ms(C::syncobj_acquire), 0.5));
        stats.set("fences.syncobj_acquire_wait_ms_p99", percentile(gate->wait_ms(C::syncobj_acquire), 0.99));
        stats.set("fences.syncobj_release_points_signalled", drm_syncobj->release_points_signalled());
    }
}

}  // namespace kiln::compositor
