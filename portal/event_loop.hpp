// EventLoop: one poll() over the portal's file descriptors (Wayland, D-Bus, PipeWire's loop, timers).
#pragma once

#include <cstdint>
#include <functional>
#include <map>

namespace portal {

class EventLoop {
public:
    using Handler = std::function<void(short revents)>;

    // Watches fd for POLLIN until remove(fd); the handler may add or remove fds.
    void add(int fd, Handler handler) { handlers_[fd] = std::move(handler); }
    void remove(int fd) { handlers_.erase(fd); }
    // Waits up to timeout_ms (-1: no limit) and runs the handlers of ready fds; false when poll failed.
    bool iterate(int timeout_ms);
    void quit() { running_ = false; }
    bool running() const { return running_; }

private:
    std::map<int, Handler> handlers_;
    bool running_ = true;
};

// A timerfd on the event loop: fires once, at the time asked.
class Timer {
public:
    Timer(EventLoop& loop, std::function<void()> fired);
    ~Timer();
    Timer(const Timer&) = delete;
    Timer& operator=(const Timer&) = delete;

    void arm_in(uint64_t nanoseconds);
    bool armed() const { return armed_; }

private:
    EventLoop& loop_;
    int fd_;
    bool armed_ = false;
    std::function<void()> fired_;
};

}  // namespace portal
