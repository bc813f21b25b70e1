// FenceEvents: the fd and eventfd sources and the callback table.
#include "compositor/output/fence_events.hpp"

#include "compositor/log.hpp"

#include <cstdio>
#include <unistd.h>

namespace kiln::compositor {

FenceEvents::FenceEvents(wl_event_loop* loop) : loop_(loop)
{
    if (!waiter_.ok()) {
        log::error("cannot create the fence waiter's eventfd");
        return;
    }
    waiter_source_ = wl_event_loop_add_fd(
        loop_, waiter_.event_fd(), WL_EVENT_READABLE,
        [](int, uint32_t, void* data) noexcept -> int {
            auto* self = static_cast<FenceEvents*>(data);
            for (uint64_t id : self->waiter_.take_signalled())
                self->finish(id);
            return 0;
        },
        this);
}

FenceEvents::~FenceEvents()
{
    for (auto& [id, watch] : callbacks_) {
        if (watch.source)
            wl_event_source_remove(watch.source);
        if (watch.fd >= 0)
            close(watch.fd);
    }
    if (waiter_source_)
        wl_event_source_remove(waiter_source_);
}

void FenceEvents::watch(std::shared_ptr<renderer::RenderFence> fence, std::function<void()> done)
{
    const uint64_t id = next_id_++;
    Watch& watch = callbacks_[id];
    watch.done = std::move(done);
    watch.fence = fence;
    watch.fd = fence->export_fd();
    if (watch.fd >= 0) {
        // Native fences are found by their fd: few are in flight at once (at most one per ring slot).
        watch.source = wl_event_loop_add_fd(
            loop_, watch.fd, WL_EVENT_READABLE,
            [](int fd, uint32_t, void* data) noexcept -> int {
                auto* self = static_cast<FenceEvents*>(data);
                for (auto& [id, w] : self->callbacks_)
                    if (w.fd == fd) {
                        self->finish(id);
                        break;
                    }
                return 0;
            },
            this);
        if (watch.source)
            return;
        close(watch.fd);
        watch.fd = -1;
    }
    waiter_.submit(id, std::move(fence));
}

void FenceEvents::finish(uint64_t id)
{
    auto it = callbacks_.find(id);
    if (it == callbacks_.end())
        return;
    Watch watch = std::move(it->second);
    callbacks_.erase(it);
    if (watch.source)
        wl_event_source_remove(watch.source);
    if (watch.fd >= 0)
        close(watch.fd);
    watch.done();
}

}  // namespace kiln::compositor
