// FenceEvents: render-done fences turned into event-loop callbacks: a native sync_file fd is polled directly, an
// EGL_KHR_fence_sync (llvmpipe) is waited on renderer::FenceWaiter's thread, which wakes the loop through an eventfd.
#pragma once

#include "compositor/wlr.hpp"
#include "renderer/fence_waiter.hpp"

#include <functional>
#include <map>
#include <memory>

namespace kiln::compositor {

class FenceEvents {
public:
    explicit FenceEvents(wl_event_loop* loop);
    ~FenceEvents();
    FenceEvents(const FenceEvents&) = delete;
    FenceEvents& operator=(const FenceEvents&) = delete;

    // Calls `done` on the compositor thread once `fence` has signalled; never blocks. A callback still pending when
    // FenceEvents dies is dropped (its owner is going away too).
    void watch(std::shared_ptr<renderer::RenderFence> fence, std::function<void()> done);
    size_t pending() const { return callbacks_.size(); }

private:
    struct Watch {
        std::function<void()> done;
        std::shared_ptr<renderer::RenderFence> fence;
        wl_event_source* source = nullptr;  // native fd
        int fd = -1;
    };
    void finish(uint64_t id);

    wl_event_loop* loop_;
    renderer::FenceWaiter waiter_;
    wl_event_source* waiter_source_ = nullptr;
    std::map<uint64_t, Watch> callbacks_;
    uint64_t next_id_ = 1;
};

}  // namespace kiln::compositor
