// AcquireFences: a dma-buf commit is applied only once the buffer's implicit write fences have signalled. Until
// then the surface keeps its previous state (the commit is cached with wlr_surface_lock_pending), so no frame
// shows unfinished pixels and the commit's frame callbacks and presentation feedback wait with it. The wait is a
// sync_file polled by the event loop: the compositor thread never blocks, and other clients go on.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <chrono>
#include <functional>
#include <list>
#include <memory>
#include <vector>

namespace kiln::compositor {

class AcquireFences {
public:
    explicit AcquireFences(wl_display* display);
    ~AcquireFences();
    AcquireFences(const AcquireFences&) = delete;
    AcquireFences& operator=(const AcquireFences&) = delete;

    // Surfaces that use explicit sync (linux-drm-syncobj): their implicit fences are not waited for.
    void set_explicit_sync(std::function<bool(wlr_surface*)> is_explicit) { is_explicit_ = std::move(is_explicit); }

    uint64_t waits() const { return waits_; }
    size_t waiting() const { return pending_.size(); }
    // Milliseconds each finished wait took.
    const std::vector<double>& wait_ms() const { return wait_ms_; }

private:
    struct Wait {
        AcquireFences* owner = nullptr;
        wlr_surface* surface = nullptr;
        uint32_t seq = 0;
        std::vector<int> fds;
        std::vector<wl_event_source*> sources;
        std::chrono::steady_clock::time_point start;
        wl::Listener surface_destroy;
    };

    static void on_request(void* data, wl_protocol_logger_type type, const wl_protocol_logger_message* message) noexcept;
    void before_commit(wlr_surface* surface);
    void fence_ready(Wait* wait, int fd);
    void drop(Wait* wait);

    wl_event_loop* loop_;
    std::function<bool(wlr_surface*)> is_explicit_;
    wl_protocol_logger* logger_ = nullptr;
    std::list<std::unique_ptr<Wait>> pending_;
    uint64_t waits_ = 0;
    std::vector<double> wait_ms_;
};

}  // namespace kiln::compositor
