// BufferReleases: the owner of every committed client buffer's release (buffer_release.hpp), one per texture that
// reads a client's buffer in place, so one per commit (wlroots' wlr_client_buffer and its texture live and die
// together); frames find a buffer's release here, by the texture they sample, and the syncobj release points by the
// commit's wlr_client_buffer. It also owns the release counters and, where frames are composed on the CPU, the
// ReleaseBatch that sends an shm buffer's wl_buffer.release with the frame callbacks of a client pacing itself by
// them. The bridge tells it which textures read in place (bridge/in_place_reads.hpp) and nothing more.
#pragma once

#include "compositor/bridge/in_place_reads.hpp"
#include "compositor/output/sync/buffer_release.hpp"
#include "compositor/output/sync/commit_gate.hpp"
#include "compositor/output/sync/release_batch.hpp"
#include "compositor/stats.hpp"
#include "compositor/wlr.hpp"

#include <memory>
#include <unordered_map>

namespace kiln::compositor {

class BufferReleases final : public InPlaceReads {
public:
    BufferReleases() = default;
    // Releases what is still held (kiln is going; textures that end later keep only their own read of the memory).
    ~BufferReleases() override;
    BufferReleases(const BufferReleases&) = delete;
    BufferReleases& operator=(const BufferReleases&) = delete;

    void began(wlr_texture* texture, wlr_buffer* source, bool shm) override;
    void ended(wlr_texture* texture) override;

    // The release of the client buffer `texture` reads in place; null for kiln's own copy of one (shm drawn by GL).
    BufferRelease* of(const wlr_texture* texture) const;
    BufferRelease* of(const wlr_client_buffer* committed) const { return committed ? of(committed->texture) : nullptr; }

    // From now on, the wl_buffer.release of an shm buffer read in place, replaced by a commit that asks for a frame
    // callback, goes out with the next frame callbacks (release_batch.hpp), timed on `loop`; `gate` shows this every
    // commit first (before_commit). Output calls flush() just before it sends frame callbacks.
    void release_shm_with_frames(wl_event_loop* loop, CommitGate& gate);
    // Before each wl_surface.commit runs: one that replaces the buffer and asks for a frame callback comes from a
    // client pacing itself by them, so the buffer it replaces (if read in place) is released with the callback. A
    // commit without one (a client drawing as fast as buffers come back) gets its release at once, as before.
    void before_commit(wlr_surface* surface);
    void flush()
    {
        if (batch_)
            batch_->flush();
    }

    const BufferRelease::Counters& counters() const { return counters_; }
    const ReleaseBatch* batch() const { return batch_.get(); }
    size_t held() const { return releases_.size(); }
    // buffers.released_* for --stats.
    void report(Stats& stats) const;

private:
    struct Entry {
        std::unique_ptr<BufferRelease> release;
        bool shm = false;
    };
    std::unordered_map<const wlr_texture*, Entry> releases_;
    BufferRelease::Counters counters_;
    // Declared after the releases and before the gate's source: a release handing its buffer to the batch finds it.
    std::unique_ptr<ReleaseBatch> batch_;
    std::unique_ptr<CommitGate::Source> pacing_;
};

}  // namespace kiln::compositor
