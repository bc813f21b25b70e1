// CommitTimingV1: wp_commit_timing_manager_v1 (wlroots 0.15 lacks it): a content update with a target time is held
// (wlr_surface_lock_pending, as acquire fences hold one) until just after the output's last refresh before the
// target, so the first frame it is drawn into is presented at or after the target, not before and about one refresh
// at most after. The refreshes are predicted from the output's presentation events; with none yet, or on no output,
// the update is applied at the target itself.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/output/sync/surface_commit_hook.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <ctime>
#include <list>
#include <map>
#include <memory>

namespace kiln::compositor {

class CommitTimingV1 {
public:
    CommitTimingV1(wl_display* display, wlr_output_layout* layout);
    ~CommitTimingV1();
    CommitTimingV1(const CommitTimingV1&) = delete;
    CommitTimingV1& operator=(const CommitTimingV1&) = delete;

    struct Timer;

    // When an update targeted at `target` should be applied (CLOCK_MONOTONIC ns), given the last presentation at
    // `last_ns` and the refresh period (0: unknown): right after the last predicted refresh before the target.
    static int64_t apply_at(int64_t target_ns, int64_t last_ns, int64_t refresh_ns);

private:
    struct Held;
    struct Refresh {
        int64_t last_ns = 0;
        int64_t period_ns = 0;
    };

    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;
    static void get_timer(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface) noexcept;
    void before_commit(wlr_surface* surface);
    void release(Held* held);

    wl_display* display_;
    wl_global* global_;
    wlr_output_layout* layout_;
    std::list<Timer*> timers_;
    std::list<std::unique_ptr<Held>> held_;
    std::map<wlr_output*, Refresh> refresh_;
    SurfaceCommitHook hook_;
    wl::Listener layout_change_;
    std::list<wl::Listener> output_presents_;
};

}  // namespace kiln::compositor
