// FifoBarriers: per surface, the barriers set by updates (up once applied, cleared once latched or timed out) and
// the updates the gate holds for them.
#include "compositor/output/sync/fifo_barriers.hpp"

#include <algorithm>

namespace kiln::compositor {
namespace {

constexpr int forward_progress_ms = 250;
constexpr int forward_progress_frames = 4;  // the output ring's three slots in flight, and one
constexpr std::chrono::milliseconds live_output{1000};

}  // namespace

FifoBarriers::Surface::~Surface()
{
    if (timeout)
        wl_event_source_remove(timeout);
}

FifoBarriers::FifoBarriers(CommitGate& gate, wl_event_loop* loop) : gate_(gate), loop_(loop) {}

FifoBarriers::~FifoBarriers()
{
    if (clear_later_)
        wl_event_source_remove(clear_later_);
}

FifoBarriers::Surface& FifoBarriers::surface_entry(wlr_surface* surface)
{
    auto& entry = surfaces_[surface];
    if (!entry) {
        entry = std::make_unique<Surface>();
        entry->owner = this;
        entry->surface = surface;
        Surface* raw = entry.get();
        raw->applied.connect(&surface->events.commit, [this, raw](void*) { applied(*raw); });
        // The surface's cached states go with it; the gate forgets its holds by itself.
        raw->destroy.connect(&surface->events.destroy, [this, surface](void*) { surfaces_.erase(surface); });
    }
    return *entry;
}

void FifoBarriers::commit(wlr_surface* surface, bool set_barrier, bool wait_barrier)
{
    if (!set_barrier && !wait_barrier)
        return;
    Surface& entry = surface_entry(surface);
    const uint32_t seq = surface->pending.seq;
    // Held while a barrier set by an earlier update is up, or will come up once that update is applied.
    if (wait_barrier && !entry.barriers.empty()) {
        gate_.hold(surface, CommitGate::Condition::fifo_barrier);
        entry.waiting.push_back(seq);
    }
    if (set_barrier)
        entry.barriers.push_back(Barrier{seq});
}

void FifoBarriers::applied(Surface& entry)
{
    const uint32_t current = entry.surface->current.seq;
    bool raised = false;
    for (Barrier& barrier : entry.barriers) {
        if (!barrier.up && barrier.seq <= current) {
            barrier.up = true;
            raised = true;
        }
    }
    if (!raised)
        return;
    entry.missed_frames = 0;
    if (!entry.timeout) {
        Surface* raw = &entry;
        entry.timeout = wl_event_loop_add_timer(
            loop_,
            [](void* data) noexcept {
                auto* s = static_cast<Surface*>(data);
                s->owner->timed_out(*s);
                return 0;
            },
            raw);
    }
    if (entry.timeout)
        wl_event_source_timer_update(entry.timeout, forward_progress_ms);
}

void FifoBarriers::latched(wlr_output* output, std::span<const Latched> states)
{
    if (output)
        last_frame_[output] = std::chrono::steady_clock::now();
    bool any = false;
    auto latch_upto = [&any](Surface& entry, uint32_t seq) {
        for (Barrier& barrier : entry.barriers) {
            if (barrier.up && barrier.seq <= seq && !barrier.latched) {
                barrier.latched = true;
                any = true;
            }
        }
    };
    for (const Latched& state : states)
        if (auto it = surfaces_.find(state.surface); it != surfaces_.end())
            latch_upto(*it->second, state.seq);
    for (auto& [surface, entry] : surfaces_)
        if (wl_list_empty(&surface->current_outputs))
            latch_upto(*entry, surface->current.seq);
    if (output && count_missed_frame(output))
        any = true;
    if (!any || clear_later_)
        return;
    clear_later_ = wl_event_loop_add_idle(
        loop_,
        [](void* data) noexcept {
            auto* self = static_cast<FifoBarriers*>(data);
            self->clear_later_ = nullptr;
            self->clear_latched();
        },
        this);
}

void FifoBarriers::clear_latched()
{
    std::vector<wlr_surface*> cleared;
    for (auto& [surface, entry] : surfaces_) {
        const auto before = entry->barriers.size();
        std::erase_if(entry->barriers, [](const Barrier& b) { return b.latched; });
        if (entry->barriers.size() != before)
            cleared.push_back(surface);
    }
    // Copied: letting updates go applies them, whose handlers may destroy surfaces.
    for (wlr_surface* surface : cleared)
        release_waiting(surface);
}

bool FifoBarriers::count_missed_frame(wlr_output* output)
{
    bool any = false;
    for (auto& [surface, entry] : surfaces_) {
        auto pending = [](const Barrier& b) { return b.up && !b.latched; };
        if (!std::any_of(entry->barriers.begin(), entry->barriers.end(), pending))
            continue;
        bool shown = false;
        wlr_surface_output* entered;
        wl_list_for_each(entered, &surface->current_outputs, link) shown = shown || entered->output == output;
        if (!shown || ++entry->missed_frames < forward_progress_frames)
            continue;
        for (Barrier& barrier : entry->barriers)
            barrier.latched = barrier.latched || barrier.up;
        any = true;
    }
    return any;
}

bool FifoBarriers::shown_by_live_output(wlr_surface* surface) const
{
    const auto now = std::chrono::steady_clock::now();
    wlr_surface_output* entered;
    wl_list_for_each(entered, &surface->current_outputs, link)
    {
        auto it = last_frame_.find(entered->output);
        if (it != last_frame_.end() && now - it->second < live_output)
            return true;
    }
    return false;
}

void FifoBarriers::timed_out(Surface& entry)
{
    if (std::none_of(entry.barriers.begin(), entry.barriers.end(), [](const Barrier& b) { return b.up; }))
        return;
    // Frames still come where the surface is shown, however slowly: they latch it, or count towards forward
    // progress above. Clearing by the clock here let the next FIFO update into the frame that was still to come.
    if (shown_by_live_output(entry.surface)) {
        wl_event_source_timer_update(entry.timeout, forward_progress_ms);
        return;
    }
    std::erase_if(entry.barriers, [](const Barrier& b) { return b.up; });
    release_waiting(entry.surface);
}

void FifoBarriers::release_waiting(wlr_surface* surface)
{
    for (;;) {
        auto it = surfaces_.find(surface);
        if (it == surfaces_.end())
            return;
        Surface& entry = *it->second;
        if (entry.waiting.empty())
            return;
        const uint32_t seq = entry.waiting.front();
        const bool held = std::any_of(entry.barriers.begin(), entry.barriers.end(),
                                      [seq](const Barrier& b) { return b.seq < seq; });
        if (held)
            return;
        entry.waiting.erase(entry.waiting.begin());
        // Applies the update if nothing else holds it; if it sets a barrier, the next waiting one now waits for it.
        gate_.ready(surface, seq, CommitGate::Condition::fifo_barrier);
    }
}

size_t FifoBarriers::barriers(wlr_surface* surface) const
{
    auto it = surfaces_.find(surface);
    return it == surfaces_.end() ? 0 : it->second->barriers.size();
}

}  // namespace kiln::compositor
