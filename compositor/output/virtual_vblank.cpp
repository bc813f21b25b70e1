// VirtualVblank: a periodic CLOCK_MONOTONIC timerfd watched by the event loop.
#include "compositor/output/virtual_vblank.hpp"

#include <wayland-server-core.h>

#include <sys/timerfd.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>

namespace kiln::compositor {

VirtualVblank::VirtualVblank(wl_event_loop* loop, std::function<void()> tick)
    : fd_(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)), tick_(std::move(tick))
{
    if (fd_ < 0) {
        std::perror("kiln: timerfd_create for a headless output's clock");
        return;
    }
    source_ = wl_event_loop_add_fd(loop, fd_, WL_EVENT_READABLE, &VirtualVblank::on_readable, this);
    if (!source_) {
        close(fd_);
        fd_ = -1;
    }
}

VirtualVblank::~VirtualVblank()
{
    if (source_)
        wl_event_source_remove(source_);
    if (fd_ >= 0)
        close(fd_);
}

void VirtualVblank::set_refresh(int32_t refresh_mhz)
{
    if (!valid())
        return;
    constexpr int64_t default_mhz = 60000;
    const int64_t mhz = refresh_mhz > 0 ? refresh_mhz : default_mhz;
    const int64_t period = 1'000'000'000'000LL / mhz;
    if (period == period_ns_)
        return;
    period_ns_ = period;
    itimerspec spec{};
    spec.it_interval.tv_sec = static_cast<time_t>(period / 1'000'000'000);
    spec.it_interval.tv_nsec = static_cast<long>(period % 1'000'000'000);
    spec.it_value = spec.it_interval;  // the first tick is one period from now
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    start_ns_ = static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
    ticks_ = 0;
    timerfd_settime(fd_, 0, &spec, nullptr);
}

int VirtualVblank::on_readable(int fd, uint32_t, void* data) noexcept
{
    auto* self = static_cast<VirtualVblank*>(data);
    uint64_t expirations = 0;
    if (read(fd, &expirations, sizeof(expirations)) != sizeof(expirations) || expirations == 0)
        return 0;
    self->ticks_ += expirations;
    self->skipped_ += expirations - 1;
    self->tick_();
    return 0;
}

}  // namespace kiln::compositor
