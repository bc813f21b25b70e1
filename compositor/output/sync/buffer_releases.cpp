// BufferReleases: the release of every client buffer read in place, by its texture, and the batch of frame-paced ones.
#include "compositor/output/sync/buffer_releases.hpp"

#include <utility>

namespace kiln::compositor {

BufferReleases::~BufferReleases()
{
    pacing_.reset();
    // Released before the batch goes (it lets go of what it then holds). Taken out first: a release's end may end
    // a texture, which says ended() here.
    auto left = std::exchange(releases_, {});
    left.clear();
}

void BufferReleases::began(wlr_texture* texture, wlr_buffer* source, bool shm)
{
    releases_[texture] = Entry{std::make_unique<BufferRelease>(source, counters_), shm};
}

void BufferReleases::ended(wlr_texture* texture)
{
    auto it = releases_.find(texture);
    if (it == releases_.end())
        return;
    std::unique_ptr<BufferRelease> release = std::move(it->second.release);
    releases_.erase(it);
    // Every holder of the commit's buffer has let go: the client gets its buffer back (or its release point).
    release->release();
}

BufferRelease* BufferReleases::of(const wlr_texture* texture) const
{
    if (!texture)
        return nullptr;
    auto it = releases_.find(texture);
    return it == releases_.end() ? nullptr : it->second.release.get();
}

void BufferReleases::release_shm_with_frames(wl_event_loop* loop, CommitGate& gate)
{
    // Three refresh periods at 60 Hz: a composition normally comes within one; the bound is for when none does.
    batch_ = std::make_unique<ReleaseBatch>(loop, std::chrono::milliseconds(50));
    pacing_ = std::make_unique<CommitGate::Source>(gate, [this](wlr_surface* surface) { before_commit(surface); });
}

void BufferReleases::before_commit(wlr_surface* surface)
{
    if (!batch_ || !surface->buffer || !surface->buffer->texture ||
        !(surface->pending.committed & WLR_SURFACE_STATE_BUFFER) ||
        wl_list_empty(&surface->pending.frame_callback_list))
        return;
    auto it = releases_.find(surface->buffer->texture);
    if (it != releases_.end() && it->second.shm)
        it->second.release->release_with_frame(batch_.get());
}

void BufferReleases::report(Stats& stats) const
{
    stats.set("buffers.released_after_render", counters_.after_render);
    stats.set("buffers.released_unsampled", counters_.unsampled);
    if (batch_) {
        stats.set("buffers.released_with_frame", batch_->counters().with_frame);
        stats.set("buffers.released_by_bound", batch_->counters().by_bound);
    }
}

}  // namespace kiln::compositor
