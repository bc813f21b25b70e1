// CommitTargets: held updates let go by the first frame presented at or after their target; a timer per update
// wakes its outputs up for that frame.
#include "compositor/output/sync/commit_targets.hpp"

#include <algorithm>
#include <ctime>
#include <utility>
#include <vector>

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

bool on_output(wlr_surface* surface, wlr_output* output)
{
    wlr_surface_output* entered = nullptr;
    wl_list_for_each(entered, &surface->current_outputs, link)
        if (entered->output == output)
            return true;
    return false;
}

}  // namespace

int64_t CommitTargets::apply_at(int64_t target_ns, int64_t last_ns, int64_t refresh_ns)
{
    if (refresh_ns <= 0 || last_ns <= 0 || target_ns <= last_ns)
        return target_ns;
    // The refreshes are last + k * period; the one before the target is the last whose successor reaches it.
    const int64_t k = (target_ns - last_ns + refresh_ns - 1) / refresh_ns - 1;
    return last_ns + k * refresh_ns + ns_per_ms;  // a moment after it, so the frame asked for next is the target's
}

CommitTargets::~CommitTargets()
{
    for (const auto& held : held_)
        if (held->wake)
            wl_event_source_remove(held->wake);
}

void CommitTargets::presented(wlr_output* output, int64_t when_ns, int64_t refresh_ns)
{
    Refresh& r = refresh_[output];
    r.last_ns = when_ns;
    r.period_ns = refresh_ns > 0 ? refresh_ns : 0;
}

void CommitTargets::commit(wlr_surface* surface, int64_t target_ns)
{
    Refresh refresh;
    wlr_surface_output* entered = nullptr;
    wl_list_for_each(entered, &surface->current_outputs, link)
    {
        if (auto it = refresh_.find(entered->output); it != refresh_.end()) {
            refresh = it->second;
            break;
        }
    }
    const int64_t now = now_ns();
    if (target_ns <= now)
        return;  // due now: applied with this commit
    Held& held = *held_.push_back(std::make_unique<Held>());
    held.owner = this;
    held.surface = surface;
    held.seq = gate_.hold(surface, CommitGate::Condition::commit_timing);
    held.target_ns = target_ns;
    const int64_t wake_in = apply_at(target_ns, refresh.last_ns, refresh.period_ns) - now;
    held.wake = wl_event_loop_add_timer(
        loop_,
        [](void* data) noexcept {
            auto* h = static_cast<Held*>(data);
            h->owner->woken(h);
            return 0;
        },
        &held);
    if (held.wake) {
        const int64_t wake_ms = std::max<int64_t>(1, (wake_in + ns_per_ms - 1) / ns_per_ms);
        wl_event_source_timer_update(held.wake, static_cast<int>(wake_ms));
    }
    // The surface gone first takes its cached state with it (the gate forgets it): the hold is simply forgotten.
    Held* raw = &held;
    held.destroy.connect(&surface->events.destroy, [this, raw](void*) { drop(raw); });
}

void CommitTargets::woken(Held* held)
{
    if (held->asked || wl_list_empty(&held->surface->current_outputs)) {
        let_go(held);  // no output draws it (or none drew the target's frame): applied now
        return;
    }
    // The outputs it is on draw the target's frame even if nothing else changes; should none of them draw at all,
    // the update goes a little after its target.
    held->asked = true;
    wlr_surface_output* entered = nullptr;
    wl_list_for_each(entered, &held->surface->current_outputs, link)
        wlr_output_schedule_frame(entered->output);
    const int64_t fallback_ms = std::max<int64_t>(0, (held->target_ns - now_ns()) / ns_per_ms) + 50;
    wl_event_source_timer_update(held->wake, static_cast<int>(fallback_ms));
}

void CommitTargets::composing(wlr_output* output, int64_t presentation_ns)
{
    // Checked again by name before each is let go: applying one runs handlers that may destroy another's surface
    // (and drop its hold).
    struct Due {
        Held* held;
        wlr_surface* surface;
        uint32_t seq;
    };
    std::vector<Due> due;
    for (const auto& held : held_)
        if (held->target_ns <= presentation_ns &&
            (on_output(held->surface, output) || wl_list_empty(&held->surface->current_outputs)))
            due.push_back({held.get(), held->surface, held->seq});
    for (const Due& d : due)
        if (held_.contains(d.held) && d.held->surface == d.surface && d.held->seq == d.seq)
            let_go(d.held);
}

void CommitTargets::let_go(Held* held)
{
    wlr_surface* surface = held->surface;
    const uint32_t seq = held->seq;
    drop(held);
    gate_.ready(surface, seq, CommitGate::Condition::commit_timing);  // applies it (and its handlers run) now
}

void CommitTargets::drop(Held* held)
{
    if (held->wake)
        wl_event_source_remove(held->wake);
    held_.erase(held);
}

}  // namespace kiln::compositor
