// EventLoop: poll() over registered fds, and timerfd-backed one-shot timers.
#include "event_loop.hpp"

#include <poll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace portal {

bool EventLoop::iterate(int timeout_ms) {
    std::vector<pollfd> fds;
    fds.reserve(handlers_.size());
    for (const auto& [fd, handler] : handlers_)
        fds.push_back({fd, POLLIN, 0});
    int ready = poll(fds.data(), fds.size(), timeout_ms);
    if (ready < 0)
        return errno == EINTR;
    for (const auto& entry : fds) {
        if (!entry.revents)
            continue;
        auto found = handlers_.find(entry.fd);  // an earlier handler may have removed it
        if (found == handlers_.end())
            continue;
        Handler handler = found->second;  // a copy: the handler may remove itself
        handler(entry.revents);
    }
    return true;
}

Timer::Timer(EventLoop& loop, std::function<void()> fired)
    : loop_(loop), fd_(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)), fired_(std::move(fired)) {
    if (fd_ >= 0)
        loop_.add(fd_, [this](short) {
            uint64_t expirations = 0;
            if (read(fd_, &expirations, sizeof expirations) != sizeof expirations)
                return;
            armed_ = false;
            fired_();
        });
}

Timer::~Timer() {
    if (fd_ >= 0) {
        loop_.remove(fd_);
        close(fd_);
    }
}

void Timer::arm_in(uint64_t nanoseconds) {
    if (fd_ < 0)
        return;
    if (nanoseconds == 0)
        nanoseconds = 1;  // 0 would disarm
    itimerspec spec{};
    spec.it_value.tv_sec = static_cast<time_t>(nanoseconds / 1000000000u);
    spec.it_value.tv_nsec = static_cast<long>(nanoseconds % 1000000000u);
    timerfd_settime(fd_, 0, &spec, nullptr);
    armed_ = true;
}

}  // namespace portal
