// SyncobjPoints: the DRM syncobj timeline points of explicit sync (linux-drm-syncobj-v1): a commit's acquire point is
// waited on through the commit gate (DRM_IOCTL_SYNCOBJ_EVENTFD, polled by the event loop), and its release point is
// signalled by the BufferRelease of the commit's buffer.
#pragma once

#include "compositor/output/sync/buffer_release.hpp"
#include "compositor/output/sync/commit_gate.hpp"

#include <cstdint>
#include <functional>
#include <memory>

namespace kiln::compositor {

// A timeline imported as a DRM syncobj handle, destroyed with the last point that names it.
struct SyncobjTimeline {
    int drm_fd;
    uint32_t handle;
    SyncobjTimeline(int fd, uint32_t h) : drm_fd(fd), handle(h) {}
    ~SyncobjTimeline();
    // Owns the handle: a copy would destroy it twice (the first time while still in use).
    SyncobjTimeline(const SyncobjTimeline&) = delete;
    SyncobjTimeline& operator=(const SyncobjTimeline&) = delete;
};

struct SyncobjPoint {
    std::shared_ptr<SyncobjTimeline> timeline;  // held by the point: a client may destroy the timeline object meanwhile
    uint64_t value = 0;
    explicit operator bool() const { return timeline != nullptr; }
};

class SyncobjPoints {
public:
    // `release_of`: the BufferRelease of a commit's wlr_client_buffer (null if it has none).
    SyncobjPoints(CommitGate& gate, wl_event_loop* loop, int drm_fd,
                  std::function<BufferRelease*(wlr_client_buffer*)> release_of);
    ~SyncobjPoints() { *alive_ = nullptr; }
    SyncobjPoints(const SyncobjPoints&) = delete;
    SyncobjPoints& operator=(const SyncobjPoints&) = delete;

    // The surface's commit about to run waits for `acquire` (nothing to hold if it has signalled).
    void hold_for(wlr_surface* surface, const SyncobjPoint& acquire);
    // A commit was applied with `buffer` (null: no buffer could be used): `release` is signalled when that buffer
    // is released, or now.
    void signal_on_release(wlr_client_buffer* buffer, SyncobjPoint release);
    void signal(const SyncobjPoint& point);

    uint64_t release_points_signalled() const { return signalled_; }

private:
    CommitGate& gate_;
    wl_event_loop* loop_;
    int drm_fd_;
    std::function<BufferRelease*(wlr_client_buffer*)> release_of_;
    uint64_t signalled_ = 0;
    // Releases still to come hold a weak reference: after kiln's teardown started they signal nothing.
    std::shared_ptr<SyncobjPoints*> alive_ = std::make_shared<SyncobjPoints*>(this);
};

}  // namespace kiln::compositor
