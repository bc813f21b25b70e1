// CommitTargets: wp_commit_timer_v1's target times, held through the commit gate. A content update with a target is
// applied for the first frame whose presentation time is at or after the target: each output says, as it starts
// composing a frame, when that frame will be presented, and every update held for a target at or before then is
// let go just before it is drawn (so it is never shown early, and not a frame late). A timer at the predicted
// refresh before the target asks the surface's outputs for that frame (an idle output draws none by itself); on no
// output the update is applied when the timer fires, at the target, and where no output draws (one powered off) it
// is applied 50 ms after the target rather than never.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/output/sync/commit_gate.hpp"

#include <cstdint>
#include <map>
#include <memory>

namespace kiln::compositor {

class CommitTargets {
public:
    CommitTargets(CommitGate& gate, wl_event_loop* loop) : gate_(gate), loop_(loop) {}
    ~CommitTargets();
    CommitTargets(const CommitTargets&) = delete;
    CommitTargets& operator=(const CommitTargets&) = delete;

    // The surface's commit about to run is for `target_ns` (CLOCK_MONOTONIC).
    void commit(wlr_surface* surface, int64_t target_ns);
    // `output` starts composing a frame it will present at `presentation_ns`: updates on it (or on no output)
    // targeted at or before then are applied now, so the frame draws them.
    void composing(wlr_output* output, int64_t presentation_ns);
    // `output` presented a frame at `when_ns`; it refreshes every `refresh_ns` (0: unknown).
    void presented(wlr_output* output, int64_t when_ns, int64_t refresh_ns);
    void forget(wlr_output* output) { refresh_.erase(output); }

    // When to ask for the target's frame (CLOCK_MONOTONIC ns), given the last presentation at `last_ns` and the
    // refresh period (0: unknown): right after the last predicted refresh before the target.
    static int64_t apply_at(int64_t target_ns, int64_t last_ns, int64_t refresh_ns);

    size_t held() const { return held_.size(); }

private:
    struct Refresh {
        int64_t last_ns = 0;
        int64_t period_ns = 0;
    };
    struct Held {
        CommitTargets* owner = nullptr;
        wlr_surface* surface = nullptr;
        uint32_t seq = 0;
        int64_t target_ns = 0;
        wl_event_source* wake = nullptr;
        bool asked = false;  // its outputs were asked for the target's frame
        wl::Listener destroy;
    };

    void woken(Held* held);
    void let_go(Held* held);
    void drop(Held* held);

    CommitGate& gate_;
    wl_event_loop* loop_;
    std::map<wlr_output*, Refresh> refresh_;
    IndexedList<std::unique_ptr<Held>> held_;  // a client may hold many: each found and dropped in O(1)
};

}  // namespace kiln::compositor
