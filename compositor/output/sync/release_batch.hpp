// ReleaseBatch: client buffers whose wl_buffer.release waits for the next frame callbacks, so that a client pacing
// itself by them gets both in one flush (one sendmsg from kiln, one wakeup for the client) rather than two.
//
// A buffer read in place is released when a later commit replaces it, in the iteration that handled the commit;
// its surface's frame callback goes out at the next composition, a later iteration: two flushes per client frame.
// Held here, the release leaves with that frame's callbacks (flush(), just before Output::compose sends them: a
// double-buffered client redraws from the callback and must find its other buffer free by then), or when
// `bound` has passed without any (no output composed: nothing may keep a buffer for long). Holding a buffer
// longer than needed is allowed (a client keeps drawing into its other buffers); releasing one early is not, and
// this only ever makes a release later.
#pragma once

#include "compositor/wlr.hpp"

#include <chrono>
#include <cstdint>
#include <vector>

namespace kiln::compositor {

class ReleaseBatch {
public:
    // How releases left, for --stats.
    struct Counters {
        uint64_t with_frame = 0;  // with the frame callbacks of a composition
        uint64_t by_bound = 0;    // when `bound` passed first
    };

    ReleaseBatch(wl_event_loop* loop, std::chrono::milliseconds bound);
    // Releases whatever it still holds.
    ~ReleaseBatch();
    ReleaseBatch(const ReleaseBatch&) = delete;
    ReleaseBatch& operator=(const ReleaseBatch&) = delete;

    // Takes over one lock on `client_buffer`: let go at the next flush (when the last lock goes, wlroots sends
    // wl_buffer.release).
    void hold(wlr_buffer* client_buffer);
    // Frame callbacks go out next: every held buffer is let go now, ahead of them in the same flush.
    void flush() { let_go(counters_.with_frame); }

    const Counters& counters() const { return counters_; }

private:
    void let_go(uint64_t& counter);

    wl_event_source* timer_ = nullptr;
    std::chrono::milliseconds bound_;
    std::vector<wlr_buffer*> held_;
    Counters counters_;
};

}  // namespace kiln::compositor
