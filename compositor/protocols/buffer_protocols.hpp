// BufferProtocols: how clients' buffers reach kiln (kiln's linux-dmabuf and wl_drm) and the acquire points their
// commits wait for (implicit fences, explicit sync), owned here and made in Server::start()'s order. Their declaration
// order below is their teardown order; Server destroys this group before the backend (explicit sync's timelines live
// on the backend's DRM fd) and before the commit gate they hold commits in (protocols/commit_protocols.hpp).
#pragma once

#include "compositor/output/sync/commit_gate.hpp"
#include "compositor/output/sync/implicit_fences.hpp"
#include "compositor/protocols/buffers/linux_dmabuf_v1.hpp"
#include "compositor/protocols/buffers/linux_drm_syncobj_v1.hpp"
#include "compositor/protocols/buffers/wayland_drm.hpp"
#include "compositor/stats.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <memory>

namespace kiln::compositor {

class BufferReleases;
class RenderBridge;

// The rooms, owned: a room not made (no dma-bufs, no syncobjs) is null.
struct BufferProtocols {
    BufferProtocols() = default;
    BufferProtocols(const BufferProtocols&) = delete;
    BufferProtocols& operator=(const BufferProtocols&) = delete;

    std::unique_ptr<LinuxDmabufV1> linux_dmabuf;
    std::unique_ptr<WaylandDrm> wayland_drm;  // uses linux_dmabuf, which outlives it
    std::unique_ptr<LinuxDrmSyncobjV1> drm_syncobj;
    std::unique_ptr<ImplicitFences> implicit_fences;  // asks drm_syncobj which surfaces are its own

    // linux-dmabuf and wl_drm, where the EGL display imports dma-bufs; `primary_formats` is linux-dmabuf's default
    // feedback.
    void make_dmabuf(wl_display* display, wlr_backend* backend, RenderBridge& bridge,
                     std::function<const wlr_drm_format_set*()> primary_formats);
    // Implicit fences, and explicit sync where the device has timeline syncobjs, whose release points `releases`
    // signal; both hold commits in `gate`.
    void make_sync(wl_display* display, wlr_backend* backend, CommitGate& gate, BufferReleases& releases);
    // The buffers.* keys (linux-dmabuf's only once the renderer started) and explicit sync's fences.syncobj_* keys,
    // whose waits `gate` counted.
    void report(Stats& stats, bool renderer_started, const CommitGate* gate) const;
};

}  // namespace kiln::compositor
