// BufferRelease: when a client gets a committed dma-buf back, decided and done in one place. The buffer is read in
// place, so it is kept from its commit until every holder has let go: the surface (until a later commit replaces
// it), the frames F1..Fn that sampled it (each until its render-done fence signals) and an output scanning it out.
// Then release() is the one call that gives it back: the commit's syncobj release point is signalled (explicit sync)
// and the client's wl_buffer is let go, which sends wl_buffer.release (at once, or with the surface's next frame
// callbacks: release_batch.hpp). It happens exactly once.
//
// The chain: commit → CommitGate (acquire fence / syncobj point / fifo / target) → applied: wlroots wraps the
// buffer in a wlr_client_buffer whose texture reads it in place (bridge/client_textures.cpp) and tells
// BufferReleases (buffer_releases.hpp), which makes this BufferRelease → Output draws it: sampled_by(F) → F's
// render-done: render_done(F) → the last holder gone, the wlr_client_buffer dies with its texture → release().
#pragma once

#include "compositor/output/sync/release_batch.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace kiln::compositor {

class BufferRelease {
public:
    // How buffers went back, for --stats.
    struct Counters {
        uint64_t after_render = 0;  // after the frames that sampled them (or an output that showed them) were done
        uint64_t unsampled = 0;     // replaced before anything drew them
    };
    // A frame of an output: (the output, its frame number).
    using FrameId = std::pair<const void*, uint64_t>;

    // Keeps `client_buffer` (the client's wl_buffer, as wlroots' wlr_buffer) until release().
    BufferRelease(wlr_buffer* client_buffer, Counters& counters);
    // Releases, if nothing did yet (the holders are all gone when the owner dies).
    ~BufferRelease();
    BufferRelease(const BufferRelease&) = delete;
    BufferRelease& operator=(const BufferRelease&) = delete;

    // `frame` reads the buffer until its render-done. While any frame does, `committed` (the commit's
    // wlr_client_buffer, whose life is this release's) is kept: one lock for all of them.
    void sampled_by(FrameId frame, wlr_buffer* committed);
    // `frame`'s render-done signalled (or the frame was given up); the last one lets go of the commit's buffer.
    void render_done(FrameId frame);
    // An output shows the buffer itself (direct scan-out); the backend keeps it while it does.
    void shown() { sampled_ = true; }
    // A frame composed on the CPU read the buffer and is done with it already (nothing to hold until a fence).
    void read_by_cpu_frame() { sampled_ = true; }
    // Explicit sync: `signal` the commit's release point when the buffer is released.
    void signal_on_release(std::function<void()> signal);
    // The wl_buffer.release waits in `batch` for the next frame callbacks (release_batch.hpp); not with a release
    // point to signal, whose waiter is not paced by frame callbacks.
    void release_with_frame(ReleaseBatch* batch) { batch_ = batch; }

    // Every holder has let go: the release point is signalled and the client's buffer let go (wl_buffer.release).
    void release();

    bool released() const { return client_buffer_ == nullptr; }
    const std::vector<FrameId>& sampling_frames() const { return frames_; }

private:
    wlr_buffer* client_buffer_;
    Counters& counters_;
    wlr_buffer* committed_ = nullptr;  // locked while frames_ is not empty
    std::vector<FrameId> frames_;
    std::vector<std::function<void()>> signals_;
    ReleaseBatch* batch_ = nullptr;
    bool sampled_ = false;
};

}  // namespace kiln::compositor
