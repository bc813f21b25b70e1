// FdWatch: one event source per fd, each removed (and its fd closed) as it becomes readable.
#include "compositor/output/sync/fd_watch.hpp"

#include <unistd.h>

namespace kiln::compositor {

FdWatch::FdWatch(wl_event_loop* loop, std::vector<int> fds, std::function<void()> ready)
    : fds_(std::move(fds)), ready_(std::move(ready))
{
    for (int fd : fds_)
        sources_.push_back(wl_event_loop_add_fd(
            loop, fd, WL_EVENT_READABLE,
            [](int fd, uint32_t, void* data) noexcept -> int {
                static_cast<FdWatch*>(data)->readable(fd);
                return 0;
            },
            this));
}

FdWatch::~FdWatch()
{
    for (size_t i = 0; i < fds_.size(); ++i) {
        if (sources_[i])
            wl_event_source_remove(sources_[i]);
        close(fds_[i]);
    }
}

void FdWatch::readable(int fd)
{
    for (size_t i = 0; i < fds_.size(); ++i) {
        if (fds_[i] != fd)
            continue;
        if (sources_[i])
            wl_event_source_remove(sources_[i]);
        close(fd);
        fds_.erase(fds_.begin() + static_cast<long>(i));
        sources_.erase(sources_.begin() + static_cast<long>(i));
        break;
    }
    if (fds_.empty() && ready_) {
        auto ready = std::move(ready_);
        ready();  // may destroy this watch: nothing below touches it
    }
}

}  // namespace kiln::compositor
