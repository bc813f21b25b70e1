// BufferRelease: the frames that read a committed buffer, and the one release when the last holder goes.
#include "compositor/output/sync/buffer_release.hpp"

#include <algorithm>

namespace kiln::compositor {

BufferRelease::BufferRelease(wlr_buffer* client_buffer, Counters& counters)
    : client_buffer_(wlr_buffer_lock(client_buffer)), counters_(counters)
{
}

BufferRelease::~BufferRelease()
{
    release();
    if (committed_)
        wlr_buffer_unlock(std::exchange(committed_, nullptr));
}

void BufferRelease::sampled_by(FrameId frame, wlr_buffer* committed)
{
    sampled_ = true;
    if (std::find(frames_.begin(), frames_.end(), frame) != frames_.end())
        return;
    if (frames_.empty())
        committed_ = wlr_buffer_lock(committed);
    frames_.push_back(frame);
}

void BufferRelease::render_done(FrameId frame)
{
    auto it = std::find(frames_.begin(), frames_.end(), frame);
    if (it == frames_.end())
        return;
    frames_.erase(it);
    if (frames_.empty() && committed_)
        // The last frame that read it is done. If the surface has replaced it too, the wlr_client_buffer dies now,
        // and with it its texture, which calls release().
        wlr_buffer_unlock(std::exchange(committed_, nullptr));
}

void BufferRelease::signal_on_release(std::function<void()> signal)
{
    if (released())
        signal();  // already given back: due now
    else
        signals_.push_back(std::move(signal));
}

void BufferRelease::release()
{
    if (released())
        return;
    ++(sampled_ ? counters_.after_render : counters_.unsampled);
    const bool explicit_sync = !signals_.empty();
    for (auto& signal : std::exchange(signals_, {}))
        signal();
    // The last lock on the client's buffer: wlroots' release event sends wl_buffer.release (DmabufBuffer).
    wlr_buffer* buffer = std::exchange(client_buffer_, nullptr);
    if (batch_ && !explicit_sync)
        batch_->hold(buffer);
    else
        wlr_buffer_unlock(buffer);
}

}  // namespace kiln::compositor
