// wp_commit_timing_manager_v1 and wp_commit_timer_v1: timestamps kept until their commit, commits held until due.
#include "compositor/protocols/commit_timing_v1.hpp"

#include "compositor/protocols/surface_attachment.hpp"

#include "commit-timing-v1-protocol.h"

#include <new>
#include <optional>

namespace kiln::compositor {

namespace {

constexpr int64_t ns_per_s = 1'000'000'000;
constexpr int64_t ns_per_ms = 1'000'000;

int64_t now_ns()
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<int64_t>(now.tv_sec) * ns_per_s + now.tv_nsec;
}

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

// A held update: outlives its timer object (destroying the timer leaves constraints already made in place).
struct CommitTimingV1::Held {
    CommitTimingV1* owner = nullptr;
    wlr_surface* surface = nullptr;
    uint32_t seq = 0;
    wl_event_source* source = nullptr;
    wl::Listener surface_destroy;
};

namespace {

CommitTimingV1::Timer* timer_of(wl_resource* resource)
{
    return static_cast<CommitTimingV1::Timer*>(wl_resource_get_user_data(resource));
}

}  // namespace

int64_t CommitTimingV1::apply_at(int64_t target_ns, int64_t last_ns, int64_t refresh_ns)
{
    if (refresh_ns <= 0 || last_ns <= 0 || target_ns <= last_ns)
        return target_ns;
    // The refreshes are last + k * period; the one before the target is the last whose successor reaches it.
    const int64_t k = (target_ns - last_ns + refresh_ns - 1) / refresh_ns - 1;
    return last_ns + k * refresh_ns + ns_per_ms;  // a moment after it, so the frame drawn next is the target's
}

CommitTimingV1::CommitTimingV1(wl_display* display, wlr_output_layout* layout)
    : display_(display),
      global_(wl_global_create(display, &wp_commit_timing_manager_v1_interface, 1, this, &CommitTimingV1::bind)),
      layout_(layout),
      hook_(display, [this](wlr_surface* surface) { before_commit(surface); })
{
    layout_change_.connect(&layout->events.change, [this](void*) {
        output_presents_.clear();
        std::map<wlr_output*, Refresh> kept;
        wlr_output_layout_output* placed = nullptr;
        wl_list_for_each(placed, &layout_->outputs, link)
        {
            wlr_output* output = placed->output;
            if (auto it = refresh_.find(output); it != refresh_.end())
                kept.insert(*it);
            output_presents_.emplace_back(&output->events.present, [this, output](void* data) {
                const auto* event = static_cast<wlr_output_event_present*>(data);
                if (!event->presented || !event->when)
                    return;
                Refresh& r = refresh_[output];
                r.last_ns = static_cast<int64_t>(event->when->tv_sec) * ns_per_s + event->when->tv_nsec;
                r.period_ns = event->refresh > 0 ? event->refresh : 0;
            });
        }
        refresh_.swap(kept);
    });
}

CommitTimingV1::~CommitTimingV1()
{
    for (Timer* timer : timers_) {
        timer->forget_surface();
        timer->owner = nullptr;
    }
    for (auto& held : held_)
        if (held->source)
            wl_event_source_remove(held->source);
    wl_global_destroy(global_);
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
    if (!timer)
        return;
    if (!timer->target_ns)
        return;
    const int64_t target = *timer->target_ns;
    timer->target_ns.reset();

    Refresh refresh;
    wlr_surface_output* entered = nullptr;
    wl_list_for_each(entered, &surface->current_outputs, link)
    {
        if (auto it = refresh_.find(entered->output); it != refresh_.end()) {
            refresh = it->second;
            break;
        }
    }
    const int64_t delay = apply_at(target, refresh.last_ns, refresh.period_ns) - now_ns();
    if (delay <= 0)
        return;  // due now: applied with this commit
    auto held = std::make_unique<Held>();
    Held* raw = held.get();
    raw->owner = this;
    raw->surface = surface;
    raw->seq = wlr_surface_lock_pending(surface);
    raw->source = wl_event_loop_add_timer(
        wl_display_get_event_loop(display_),
        [](void* data) noexcept {
            auto* held = static_cast<Held*>(data);
            wl_event_source_remove(held->source);
            held->source = nullptr;
            wlr_surface_unlock_cached(held->surface, held->seq);
            held->owner->release(held);
            return 0;
        },
        raw);
    if (!raw->source) {
        wlr_surface_unlock_cached(surface, raw->seq);
        return;
    }
    wl_event_source_timer_update(raw->source, static_cast<int>((delay + ns_per_ms - 1) / ns_per_ms));
    // The surface gone first takes its cached states with it: the hold is simply forgotten.
    raw->surface_destroy.connect(&surface->events.destroy, [this, raw](void*) { release(raw); });
    held_.push_back(std::move(held));
}

void CommitTimingV1::release(Held* held)
{
    if (held->source)
        wl_event_source_remove(held->source);
    held_.remove_if([held](const auto& h) { return h.get() == held; });
}

}  // namespace kiln::compositor
