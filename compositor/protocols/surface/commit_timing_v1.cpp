// wp_commit_timing_manager_v1 and wp_commit_timer_v1: timestamps checked and kept until their commit, then handed
// to CommitTargets.
#include "compositor/protocols/surface/commit_timing_v1.hpp"

#include "commit-timing-v1-protocol.h"

#include <cstdint>

namespace kiln::compositor {
namespace {

constexpr int64_t ns_per_s = 1'000'000'000;

void set_timestamp(wl_client*, wl_resource* resource, uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec) noexcept
{
    CommitTimingV1::Timer* timer = PerSurfaceObjects<CommitTimingV1::Timer>::from(resource);
    if (!timer->surface) {
        wl_resource_post_error(resource, WP_COMMIT_TIMER_V1_ERROR_SURFACE_DESTROYED, "the surface is gone");
        return;
    }
    if (nsec >= ns_per_s) {
        wl_resource_post_error(resource, WP_COMMIT_TIMER_V1_ERROR_INVALID_TIMESTAMP,
                               "tv_nsec %u is not below one second", nsec);
        return;
    }
    if (timer->target_ns) {
        wl_resource_post_error(resource, WP_COMMIT_TIMER_V1_ERROR_TIMESTAMP_EXISTS,
                               "a timestamp is already set for the next commit");
        return;
    }
    const uint64_t sec = static_cast<uint64_t>(sec_hi) << 32 | sec_lo;
    // Seconds beyond what int64 nanoseconds hold are "never": clamped far into the future.
    const int64_t max_sec = INT64_MAX / ns_per_s - 1;
    timer->target_ns = static_cast<int64_t>(sec > static_cast<uint64_t>(max_sec) ? max_sec : sec) * ns_per_s + nsec;
}

const struct wp_commit_timer_v1_interface timer_requests = {
    .set_timestamp = set_timestamp,
    .destroy = destroy_resource,
};

const struct wp_commit_timing_manager_v1_interface manager_requests = {
    .destroy = destroy_resource,
    .get_timer = PerSurfaceObjects<CommitTimingV1::Timer>::get,
};

}  // namespace

CommitTimingV1::CommitTimingV1(wl_display* display, CommitGate& gate)
    : timers_({&wp_commit_timer_v1_interface, &timer_requests, WP_COMMIT_TIMING_MANAGER_V1_ERROR_COMMIT_TIMER_EXISTS}),
      global_(display, wp_commit_timing_manager_v1_interface, 1, &manager_requests, &timers_),
      targets_(gate, wl_display_get_event_loop(display)),
      source_(gate, [this](wlr_surface* surface) { before_commit(surface); })
{
}

void CommitTimingV1::presented(wlr_output* output, int64_t when_ns, int64_t refresh_ns)
{
    if (when_ns == 0 && refresh_ns == 0)
        targets_.forget(output);
    else
        targets_.presented(output, when_ns, refresh_ns);
}

void CommitTimingV1::before_commit(wlr_surface* surface)
{
    Timer* timer = timers_.find(surface);
    if (!timer || !timer->target_ns)
        return;
    const int64_t target = *timer->target_ns;
    timer->target_ns.reset();
    // A held update outlives its timer object (destroying the timer leaves constraints already made in place).
    targets_.commit(surface, target);
}

}  // namespace kiln::compositor
