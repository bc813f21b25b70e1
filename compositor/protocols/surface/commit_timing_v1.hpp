// CommitTimingV1: wp_commit_timing_manager_v1 (wlroots 0.15 lacks it): its objects and their validation. A commit's
// target time goes to CommitTargets (output/sync/commit_targets.hpp), which holds the update through the commit gate
// so that it is applied for the first frame whose presentation time is at or after the target.
#pragma once

#include "compositor/output/sync/commit_gate.hpp"
#include "compositor/output/sync/commit_targets.hpp"
#include "compositor/protocol_kit/per_surface_object.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <optional>

namespace kiln::compositor {

class CommitTimingV1 {
public:
    CommitTimingV1(wl_display* display, CommitGate& gate);
    CommitTimingV1(const CommitTimingV1&) = delete;
    CommitTimingV1& operator=(const CommitTimingV1&) = delete;

    // One wp_commit_timer_v1: the target of its surface's next commit.
    struct Timer : PerSurfaceObject {
        std::optional<int64_t> target_ns;  // set_timestamp since the last commit
    };

    // `output` presented a frame at `when_ns` (CLOCK_MONOTONIC) and refreshes every `refresh_ns` (0: unknown; both 0:
    // the output is gone): what CommitTargets predicts refreshes from.
    void presented(wlr_output* output, int64_t when_ns, int64_t refresh_ns);
    // `output` starts composing a frame presented at `presentation_ns`: the updates due by then are applied.
    void composing(wlr_output* output, int64_t presentation_ns) { targets_.composing(output, presentation_ns); }

private:
    void before_commit(wlr_surface* surface);

    PerSurfaceObjects<Timer> timers_;
    ManagerGlobal global_;
    CommitTargets targets_;
    CommitGate::Source source_;
};

}  // namespace kiln::compositor
