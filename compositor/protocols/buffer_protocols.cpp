// BufferProtocols: the buffer and commit-timing protocols made in Server::start()'s order, and their --stats keys.
#include "compositor/protocols/buffer_protocols.hpp"

#include "compositor/bridge/render_bridge.hpp"
#include "compositor/protocols/request_hooks.hpp"

#include <optional>
#include <sys/stat.h>

namespace kiln::compositor {

void BufferProtocols::make_buffers(wl_display* display, wlr_backend* backend, RenderBridge& bridge,
                                   RequestHooks& requests, std::function<const wlr_drm_format_set*()> primary_formats)
{
    // kiln's own linux-dmabuf: clients' GPU buffers are sampled in place. Offered when the EGL display imports them.
    if (bridge.profile().can_import_dmabuf()) {
        std::optional<dev_t> main_device = bridge.profile().main_device;
        const int backend_fd = wlr_backend_get_drm_fd(backend);
        struct stat st {};
        if (backend_fd >= 0 && fstat(backend_fd, &st) == 0)
            main_device = st.st_rdev;  // clients allocate where the outputs scan out
        linux_dmabuf = std::make_unique<LinuxDmabufV1>(display, bridge, main_device, std::move(primary_formats));
        // wl_drm names a device node; without one (headless, nested) it is not offered.
        std::string node = drm_node_for(backend_fd);
        if (node.empty())
            node = bridge.profile().device_path;
        if (!node.empty())
            wayland_drm = std::make_unique<WaylandDrm>(display, bridge, *linux_dmabuf, node);
    }

    fence_events = std::make_unique<FenceEvents>(wl_display_get_event_loop(display));
    commit_gate = std::make_unique<CommitGate>();
    commit_gate->watch_commits(requests);
    implicit_fences = std::make_unique<ImplicitFences>(*commit_gate, wl_display_get_event_loop(display));
    release_pacing = std::make_unique<CommitGate::Source>(*commit_gate,
                                                          [&bridge](wlr_surface* s) { bridge.before_commit(s); });
    // Explicit sync where the device has timeline syncobjs (and clients can have dma-bufs to sync).
    if (linux_dmabuf) {
        drm_syncobj = LinuxDrmSyncobjV1::create(
            display, wlr_backend_get_drm_fd(backend), *commit_gate,
            [](wlr_client_buffer* b) { return RenderBridge::buffer_release(b->texture); });
        if (drm_syncobj)
            implicit_fences->set_explicit_sync(
                [&syncobj = drm_syncobj](wlr_surface* s) { return syncobj->is_explicit(s); });
    }
}

bool BufferProtocols::make_surface_timing(wl_display* display, wlr_backend* backend, RequestHooks& requests,
                                          wlr_output_layout* layout, std::function<void(wlr_surface*)> alpha_changed,
                                          std::string& error)
{
    presentation = std::make_unique<PresentationTime>(display, wlr_backend_get_presentation_clock(backend),
                                                      *commit_gate);
    if (!presentation->ok()) {
        error = "cannot create wp_presentation";
        return false;
    }
    surface_protocols = std::make_unique<SurfaceProtocols>(display, requests, *commit_gate, layout);
    alpha_modifier = std::make_unique<AlphaModifierV1>(display, std::move(alpha_changed));
    return true;
}

std::function<float(wlr_surface*)> BufferProtocols::surface_alpha() const
{
    return [&alpha = alpha_modifier](wlr_surface* s) { return alpha ? alpha->alpha(s) : 1.0f; };
}

void BufferProtocols::hook_outputs(OutputHooks& hooks) const
{
    hooks.latched = [&surfaces = surface_protocols](wlr_output*, std::span<const LatchedSurface> s) {
        if (surfaces)
            surfaces->latched(s);
    };
    hooks.composing = [&surfaces = surface_protocols](wlr_output* o, int64_t at) {
        if (surfaces)
            surfaces->composing(o, at);
    };
    hooks.presented = [&surfaces = surface_protocols](wlr_output* o, int64_t at, int64_t period) {
        if (surfaces)
            surfaces->presented(o, at, period);
    };
}

void BufferProtocols::report(Stats& stats, bool renderer_started) const
{
    if (renderer_started) {
        stats.set("buffers.dmabuf_buffers_created", linux_dmabuf ? linux_dmabuf->buffers_created() : 0);
        stats.set("buffers.dmabuf_requests_refused", linux_dmabuf ? linux_dmabuf->requests_refused() : 0);
        stats.set("protocols.linux_dmabuf_version", uint64_t{linux_dmabuf ? linux_dmabuf->version() : 0});
    }
    if (surface_protocols)
        surface_protocols->report(stats);
    if (commit_gate) {
        using C = CommitGate::Condition;
        stats.set("fences.acquire_waits", commit_gate->waits(C::implicit_fence));
        stats.set("fences.acquire_waiting", uint64_t{commit_gate->waiting(C::implicit_fence)});
        stats.set("fences.acquire_wait_ms_p50", percentile(commit_gate->wait_ms(C::implicit_fence), 0.5));
        stats.set("fences.acquire_wait_ms_p99", percentile(commit_gate->wait_ms(C::implicit_fence), 0.99));
    }
    stats.set("fences.syncobj_offered", uint64_t{drm_syncobj != nullptr});
    if (drm_syncobj) {
        using C = CommitGate::Condition;
        stats.set("fences.syncobj_acquire_waits", commit_gate->waits(C::syncobj_acquire));
        stats.set("fences.syncobj_acquire_wait_ms_p50", percentile(commit_gate->wait_ms(C::syncobj_acquire), 0.5));
        stats.set("fences.syncobj_acquire_wait_ms_p99", percentile(commit_gate->wait_ms(C::syncobj_acquire), 0.99));
        stats.set("fences.syncobj_release_points_signalled", drm_syncobj->release_points_signalled());
    }
}

}  // namespace kiln::compositor
