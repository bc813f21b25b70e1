// FenceWaiter's thread: takes fences in order, waits on each, reports it through the eventfd.
#include "renderer/fence_waiter.hpp"

#include <csignal>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <utility>

namespace kiln::renderer {

FenceWaiter::FenceWaiter() : event_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
{
    if (event_fd_ < 0)
        return;
    // Signals belong to the compositor thread's signalfd, never to this helper.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    thread_ = std::thread([this] {
        pthread_setname_np(pthread_self(), "kiln:fences");  // so per-thread CPU accounting can tell it apart
        run();
    });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

FenceWaiter::~FenceWaiter()
{
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable())
        thread_.join();
    if (event_fd_ >= 0)
        close(event_fd_);
}

void FenceWaiter::submit(uint64_t id, std::shared_ptr<const RenderFence> fence)
{
    {
        std::lock_guard lock(mutex_);
        queue_.emplace_back(id, std::move(fence));
    }
    wake_.notify_one();
}

std::vector<uint64_t> FenceWaiter::take_signalled()
{
    uint64_t count = 0;
    [[maybe_unused]] ssize_t n = read(event_fd_, &count, sizeof(count));
    std::lock_guard lock(mutex_);
    return std::exchange(signalled_, {});
}

void FenceWaiter::run()
{
    std::unique_lock lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        // Pending fences are still waited for at shutdown: their frames' buffers must not be freed under the GPU.
        if (queue_.empty())
            return;
        auto [id, fence] = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        fence->wait();  // a failed wait reports the fence anyway: holding buffers forever helps no one
        lock.lock();
        signalled_.push_back(id);
        const uint64_t one = 1;
        [[maybe_unused]] ssize_t n = write(event_fd_, &one, sizeof(one));
    }
}

}  // namespace kiln::renderer
