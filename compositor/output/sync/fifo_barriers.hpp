// FifoBarriers: wp_fifo_v1's barriers, held through the commit gate. A content update with set_barrier sets a
// barrier on its surface once it is applied; the barrier clears at the next latching deadline after that: when an
// output commits a frame holding that update (or, with nothing left to draw, sends its frame callbacks). An update
// with wait_barrier is held while any update before it that sets a barrier has not had its barrier cleared, whatever
// else holds either of them (an acquire fence, a timed commit), so each FIFO update is on screen for at least one
// refresh. A surface on no output, or whose barrier no frame latches, is not held for ever ("forward progress"): the
// barrier also clears after four frames of an output showing the surface that did not latch it (more than the ring
// has in flight), or a quarter of a second after it went up when no output showing the surface has composed a frame
// for a second (switched off, session away). Counted in frames where frames come: on a busy host a 60 Hz output may
// compose every half second, and a timer alone let the next FIFO update into the same frame.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/output/output_hooks.hpp"
#include "compositor/output/sync/commit_gate.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace kiln::compositor {

class FifoBarriers {
public:
    using Latched = LatchedSurface;

    FifoBarriers(CommitGate& gate, wl_event_loop* loop);
    ~FifoBarriers();
    FifoBarriers(const FifoBarriers&) = delete;
    FifoBarriers& operator=(const FifoBarriers&) = delete;

    // The surface's commit about to run sets a barrier once applied, and/or waits for the barriers before it.
    void commit(wlr_surface* surface, bool set_barrier, bool wait_barrier);
    // An output latched these surface states for presentation. Barriers they set clear on the next idle turn of the
    // event loop (outside the output's frame handler: clearing applies held updates, whose handlers should not run
    // inside it); those of surfaces on no output clear with any output's latch.
    // `output` is the output whose frame it was (null: none in particular).
    void latched(wlr_output* output, std::span<const Latched> states);

    // Barriers up or to come on the surface (for tests and --stats).
    size_t barriers(wlr_surface* surface) const;

private:
    struct Barrier {
        uint32_t seq = 0;      // the update that sets it
        bool up = false;       // that update is applied
        bool latched = false;  // an output latched it: it clears on the next idle turn
    };
    struct Surface {
        FifoBarriers* owner = nullptr;
        wlr_surface* surface = nullptr;
        std::vector<Barrier> barriers;   // oldest first
        std::vector<uint32_t> waiting;   // updates held for a barrier, oldest first
        int missed_frames = 0;           // frames of its outputs since a barrier went up that did not latch it
        wl_event_source* timeout = nullptr;  // forward progress for the barriers up
        wl::Listener applied;
        wl::Listener destroy;
        ~Surface();
    };

    Surface& surface_entry(wlr_surface* surface);
    void applied(Surface& entry);
    void clear_latched();
    void timed_out(Surface& entry);
    // Forward progress by frames: counts `output`'s frame against the barriers up on the surfaces it shows.
    bool count_missed_frame(wlr_output* output);
    // An output showing the surface composed a frame within the last second: its frames, not the timer, decide.
    bool shown_by_live_output(wlr_surface* surface) const;
    // Lets go of the held updates no barrier before them holds any more; may apply them (and destroy the surface).
    void release_waiting(wlr_surface* surface);

    CommitGate& gate_;
    wl_event_loop* loop_;
    std::map<wlr_surface*, std::unique_ptr<Surface>> surfaces_;
    wl_event_source* clear_later_ = nullptr;
    // Each output's last frame. Keyed by pointer and never pruned: only outputs a surface is on are looked up, and a
    // stale entry for a reused address is at most one second of a timer re-armed.
    std::map<const wlr_output*, std::chrono::steady_clock::time_point> last_frame_;
};

}  // namespace kiln::compositor
