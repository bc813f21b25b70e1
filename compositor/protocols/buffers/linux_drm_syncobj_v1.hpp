// LinuxDrmSyncobjV1: explicit synchronization (wp_linux_drm_syncobj_manager_v1, staging), kiln's own since wlroots
// 0.15 has none: its objects and their validation. A commit's acquire point is waited on in the commit gate and its
// release point is signalled by the commit's BufferRelease (both through output/sync/syncobj_points.hpp).
#pragma once

#include "compositor/listener.hpp"
#include "compositor/output/sync/syncobj_points.hpp"
#include "compositor/wlr.hpp"

#include <map>
#include <memory>

namespace kiln::compositor {

class LinuxDrmSyncobjV1 {
public:
    // nullptr when the device cannot serve timelines (no DRM_CAP_SYNCOBJ_TIMELINE): the global is then not offered.
    // `drm_fd` is borrowed and must outlive this object.
    static std::unique_ptr<LinuxDrmSyncobjV1> create(wl_display* display, int drm_fd, CommitGate& gate,
                                                     std::function<BufferRelease*(wlr_client_buffer*)> release_of);
    ~LinuxDrmSyncobjV1();
    LinuxDrmSyncobjV1(const LinuxDrmSyncobjV1&) = delete;
    LinuxDrmSyncobjV1& operator=(const LinuxDrmSyncobjV1&) = delete;

    // Whether the surface uses explicit sync (its implicit fences are then not waited for).
    bool is_explicit(wlr_surface* surface) const { return surfaces_.contains(surface); }
    uint64_t release_points_signalled() const { return points_.release_points_signalled(); }

    using Timeline = SyncobjTimeline;
    using Point = SyncobjPoint;
    struct SurfaceSync;

private:
    LinuxDrmSyncobjV1(wl_display* display, int drm_fd, CommitGate& gate,
                      std::function<BufferRelease*(wlr_client_buffer*)> release_of);
    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;
    void before_commit(SurfaceSync& sync);
    void surface_committed(SurfaceSync& sync);

    friend struct SurfaceSyncAccess;

    int drm_fd_;
    SyncobjPoints points_;
    wl_global* global_ = nullptr;
    std::map<wlr_surface*, SurfaceSync*> surfaces_;
    CommitGate::Source source_;  // asked at each commit (before it runs) whether it waits for an acquire point
};

}  // namespace kiln::compositor
