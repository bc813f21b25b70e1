// SyncobjPoints: acquire points as eventfds in the commit gate, release points signalled with drmSyncobjTimelineSignal.
#include "compositor/output/sync/syncobj_points.hpp"

#include "compositor/log.hpp"
#include "compositor/output/sync/fd_watch.hpp"

#include <xf86drm.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/eventfd.h>
#include <unistd.h>

namespace kiln::compositor {

SyncobjTimeline::~SyncobjTimeline()
{
    drmSyncobjDestroy(drm_fd, handle);
}

SyncobjPoints::SyncobjPoints(CommitGate& gate, wl_event_loop* loop, int drm_fd,
                             std::function<BufferRelease*(wlr_client_buffer*)> release_of)
    : gate_(gate), loop_(loop), drm_fd_(drm_fd), release_of_(std::move(release_of))
{
}

void SyncobjPoints::hold_for(wlr_surface* surface, const SyncobjPoint& acquire)
{
    uint64_t reached = 0;
    if (drmSyncobjQuery(drm_fd_, &acquire.timeline->handle, &reached, 1) == 0 && reached >= acquire.value)
        return;  // already signalled: nothing to hold
    const int event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    // flags 0: wait for the point to signal (also one not yet submitted: wait-before-submit is allowed).
    if (event_fd < 0 || drmSyncobjEventfd(drm_fd_, acquire.timeline->handle, acquire.value, event_fd, 0) != 0) {
        log::error("cannot wait on a syncobj point (%s); showing the buffer without waiting",
                   std::strerror(errno));
        if (event_fd >= 0)
            close(event_fd);
        return;
    }
    const uint32_t seq = surface->pending.seq;
    gate_.hold(surface, CommitGate::Condition::syncobj_acquire,
               std::make_unique<FdWatch>(loop_, std::vector<int>{event_fd}, [this, surface, seq] {
                   gate_.ready(surface, seq, CommitGate::Condition::syncobj_acquire);
               }));
}

void SyncobjPoints::signal_on_release(wlr_client_buffer* buffer, SyncobjPoint release)
{
    BufferRelease* owner = buffer ? release_of_(buffer) : nullptr;
    if (!owner) {
        signal(release);  // the buffer could not be used at all: it is free at once
        return;
    }
    owner->signal_on_release([alive = std::weak_ptr<SyncobjPoints*>(alive_), point = std::move(release)] {
        if (auto self = alive.lock(); self && *self)
            (*self)->signal(point);
    });
}

void SyncobjPoints::signal(const SyncobjPoint& point)
{
    uint64_t value = point.value;
    if (drmSyncobjTimelineSignal(drm_fd_, &point.timeline->handle, &value, 1) == 0)
        ++signalled_;
    else
        log::error("cannot signal a release point (%s)", std::strerror(errno));
}

}  // namespace kiln::compositor
