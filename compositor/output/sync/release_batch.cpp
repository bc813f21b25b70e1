// ReleaseBatch: held client buffers, let go with the next frame callbacks or after a bound.
#include "compositor/output/sync/release_batch.hpp"

#include <utility>

namespace kiln::compositor {

ReleaseBatch::ReleaseBatch(wl_event_loop* loop, std::chrono::milliseconds bound)
    : timer_(wl_event_loop_add_timer(
          loop,
          [](void* data) noexcept {
              auto* self = static_cast<ReleaseBatch*>(data);
              self->let_go(self->counters_.by_bound);
              return 0;
          },
          this)),
      bound_(bound)
{
}

ReleaseBatch::~ReleaseBatch()
{
    for (wlr_buffer* buffer : std::exchange(held_, {}))
        wlr_buffer_unlock(buffer);
    if (timer_)
        wl_event_source_remove(timer_);
}

void ReleaseBatch::hold(wlr_buffer* client_buffer)
{
    // Without a timer (the loop refused one) nothing bounds the wait: release at once, as without a batch.
    if (!timer_) {
        wlr_buffer_unlock(client_buffer);
        return;
    }
    if (held_.empty())
        wl_event_source_timer_update(timer_, static_cast<int>(bound_.count()));
    held_.push_back(client_buffer);
}

void ReleaseBatch::let_go(uint64_t& counter)
{
    if (held_.empty())
        return;
    // Disarmed first: unlocking runs wlroots' release handlers, and nothing held is left for the timer.
    wl_event_source_timer_update(timer_, 0);
    auto buffers = std::exchange(held_, {});
    counter += buffers.size();
    for (wlr_buffer* buffer : buffers)
        wlr_buffer_unlock(buffer);
}

}  // namespace kiln::compositor
