// wp_commit_timing_manager_v1 and wp_commit_timer_v1: timestamps checked and kept until their commit, then handed
// to CommitTargets.
#include "compositor/protocols/commit_timing_v1.hpp"

#include "compositor/protocols/surface_attachment.hpp"

#include "commit-timing-v1-protocol.h"

#include <cstdint>
#include <new>
#include <optional>

namespace kiln::compositor {

namespace {

constexpr int64_t ns_per_s = 1'000'000'000;

void destroy_request(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

}  // namespace

struct CommitTimingV1::Timer {
    CommitTimingV1* owner = nullptr;
    wl_resource* resource = nullptr;
    wlr_surface* surface = nullptr;
    SurfaceAttachment attachment;
    std::optional<int64_t> target_ns;  // set_timestamp since the last commit

    void forget_surface()
    {
        if (!surface)
            return;
        attachment.detach();
        surface = nullptr;
    }
};

namespace {

CommitTimingV1::Timer* timer_of(wl_resource* resource)
{
    return static_cast<CommitTimingV1::Timer*>(wl_resource_get_user_data(resource));
}

}  // namespace

CommitTimingV1::CommitTimingV1(wl_display* display, CommitGate& gate)
    : global_(wl_global_create(display, &wp_commit_timing_manager_v1_interface, 1, this, &CommitTimingV1::bind)),
      targets_(gate, wl_display_get_event_loop(display)),
      source_(gate, [this](wlr_surface* surface) { before_commit(surface); })
{
}

CommitTimingV1::~CommitTimingV1()
{
    for (Timer* timer : timers_) {
        timer->forget_surface();
        timer->owner = nullptr;
    }
    wl_global_destroy(global_);
}

void CommitTimingV1::presented(wlr_output* output, int64_t when_ns, int64_t refresh_ns)
{
    if (when_ns == 0 && refresh_ns == 0)
        targets_.forget(output);
    else
        targets_.presented(output, when_ns, refresh_ns);
}

void CommitTimingV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    static const struct wp_commit_timing_manager_v1_interface requests = {
        .destroy = destroy_request,
        .get_timer = &CommitTimingV1::get_timer,
    };
    wl_resource* resource =
        wl_resource_create(client, &wp_commit_timing_manager_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &requests, data, nullptr);
}

void CommitTimingV1::get_timer(wl_client* client, wl_resource* manager, uint32_t id,
                               wl_resource* surface_resource) noexcept
{
    static const struct wp_commit_timer_v1_interface requests = {
        .set_timestamp =
            [](wl_client*, wl_resource* resource, uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec) noexcept {
                Timer* timer = timer_of(resource);
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
            },
        .destroy = destroy_request,
    };
    auto* self = static_cast<CommitTimingV1*>(wl_resource_get_user_data(manager));
    wlr_surface* surface = wlr_surface_from_resource(surface_resource);
    if (SurfaceAttachment::find(surface, self)) {
        wl_resource_post_error(manager, WP_COMMIT_TIMING_MANAGER_V1_ERROR_COMMIT_TIMER_EXISTS,
                               "wl_surface@%u already has a wp_commit_timer_v1", wl_resource_get_id(surface_resource));
        return;
    }
    wl_resource* resource =
        wl_resource_create(client, &wp_commit_timer_v1_interface, wl_resource_get_version(manager), id);
    auto* timer = new (std::nothrow) Timer;
    if (!resource || !timer) {
        delete timer;
        if (resource)
            wl_resource_destroy(resource);
        wl_client_post_no_memory(client);
        return;
    }
    timer->owner = self;
    timer->resource = resource;
    timer->surface = surface;
    timer->attachment.attach(surface, self, timer,
                             [](void* gone) noexcept { static_cast<Timer*>(gone)->forget_surface(); });
    self->timers_.push_back(timer);
    wl_resource_set_implementation(resource, &requests, timer, [](wl_resource* gone) noexcept {
        Timer* timer = timer_of(gone);
        timer->forget_surface();
        if (timer->owner)
            timer->owner->timers_.remove(timer);
        delete timer;
    });
}

void CommitTimingV1::before_commit(wlr_surface* surface)
{
    auto* timer = static_cast<Timer*>(SurfaceAttachment::find(surface, this));
    if (!timer || !timer->target_ns)
        return;
    const int64_t target = *timer->target_ns;
    timer->target_ns.reset();
    // A held update outlives its timer object (destroying the timer leaves constraints already made in place).
    targets_.commit(surface, target);
}

}  // namespace kiln::compositor
