// FenceWaiter: waits for render fences on a helper thread, so the compositor thread never blocks on the GPU; an
// eventfd tells the owner's event loop that some have signalled.
#pragma once

#include "renderer/render_fence.hpp"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace kiln::renderer {

class FenceWaiter {
public:
    // false (with `error`) when no eventfd can be made.
    FenceWaiter();
    ~FenceWaiter();
    FenceWaiter(const FenceWaiter&) = delete;
    FenceWaiter& operator=(const FenceWaiter&) = delete;

    bool ok() const { return event_fd_ >= 0; }
    // Readable when fences have signalled: add it to the event loop, then call take_signalled().
    int event_fd() const { return event_fd_; }
    // Fences signal in submission order on one GPU queue, so one thread waiting on them in order is enough.
    void submit(uint64_t id, std::shared_ptr<const RenderFence> fence);
    // The ids signalled since the last call (clears the eventfd).
    std::vector<uint64_t> take_signalled();

private:
    void run();

    int event_fd_ = -1;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::pair<uint64_t, std::shared_ptr<const RenderFence>>> queue_;
    std::vector<uint64_t> signalled_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace kiln::renderer
