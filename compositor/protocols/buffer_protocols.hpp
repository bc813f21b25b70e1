// BufferProtocols: how clients' buffers reach kiln and when their commits apply (kiln's linux-dmabuf and wl_drm, the
// commit gate with implicit fences and explicit sync, wp_presentation, the surface protocols, alpha-modifier), made in
// Server::start()'s order into Server's members (their declaration order in server.hpp is the teardown order). It
// includes the rooms' headers: Server, which owns them, needs their whole types.
#pragma once

#include "compositor/output/fence_events.hpp"
#include "compositor/output/output_hooks.hpp"
#include "compositor/output/sync/commit_gate.hpp"
#include "compositor/output/sync/implicit_fences.hpp"
#include "compositor/protocols/alpha_modifier_v1.hpp"
#include "compositor/protocols/linux_dmabuf_v1.hpp"
#include "compositor/protocols/linux_drm_syncobj_v1.hpp"
#include "compositor/protocols/presentation_time.hpp"
#include "compositor/protocols/surface_protocols.hpp"
#include "compositor/protocols/wayland_drm.hpp"
#include "compositor/stats.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <memory>
#include <string>

namespace kiln::compositor {

class RenderBridge;
class RequestHooks;

// References to Server's members, which own the rooms: a room not made (no dma-bufs, no syncobjs) reads null.
struct BufferProtocols {
    std::unique_ptr<LinuxDmabufV1>& linux_dmabuf;
    std::unique_ptr<WaylandDrm>& wayland_drm;
    std::unique_ptr<FenceEvents>& fence_events;
    std::unique_ptr<CommitGate>& commit_gate;
    std::unique_ptr<ImplicitFences>& implicit_fences;
    std::unique_ptr<CommitGate::Source>& release_pacing;  // frame-paced commits: RenderBridge::before_commit
    std::unique_ptr<LinuxDrmSyncobjV1>& drm_syncobj;
    std::unique_ptr<PresentationTime>& presentation;
    std::unique_ptr<SurfaceProtocols>& surface_protocols;
    std::unique_ptr<AlphaModifierV1>& alpha_modifier;

    // linux-dmabuf and wl_drm (where the EGL display imports dma-bufs), the commit gate and its fences, and explicit
    // sync (where the device has timeline syncobjs); `primary_formats` is linux-dmabuf's default feedback.
    void make_buffers(wl_display* display, wlr_backend* backend, RenderBridge& bridge, RequestHooks& requests,
                      std::function<const wlr_drm_format_set*()> primary_formats);
    // Once the scene and layout exist: wp_presentation, the surface protocols and alpha-modifier, whose new factor
    // `alpha_changed` tells; false (with `error`) when wp_presentation cannot be made.
    bool make_surface_timing(wl_display* display, wlr_backend* backend, RequestHooks& requests,
                             wlr_output_layout* layout, std::function<void(wlr_surface*)> alpha_changed,
                             std::string& error);
    // Each surface's alpha-modifier factor, 1 without the protocol (read at each call, so after it is gone too).
    std::function<float(wlr_surface*)> surface_alpha() const;
    // Points `hooks`' latched, composing and presented at the surface protocols (FIFO, commit timing).
    void hook_outputs(OutputHooks& hooks) const;
    // The buffers.*, fences.* and surface protocols' keys; linux-dmabuf's only once the renderer started.
    void report(Stats& stats, bool renderer_started) const;
};

}  // namespace kiln::compositor
