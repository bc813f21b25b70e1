// The private tail of wlroots 0.15.1's wlr_headless_output (include/backend/headless.h, not installed), checked
// field by field before its frame timer is disarmed.
#include "compositor/output/headless_frame_timer.hpp"

namespace kiln::compositor {
namespace {

// wlroots 0.15.1: struct wlr_headless_output { struct wlr_output wlr_output; struct wlr_headless_backend* backend;
// struct wl_list link; struct wl_event_source* frame_timer; int frame_delay; /* ms */ }, and the headless
// backend's first member is its wlr_backend.
struct HeadlessOutputTail {
    void* backend;
    wl_list link;
    wl_event_source* frame_timer;
    int frame_delay;
};

}  // namespace

bool stop_headless_frame_timer(wlr_output* output)
{
    if (!output || !wlr_output_is_headless(output) || output->refresh <= 0)
        return false;
    auto* tail = reinterpret_cast<HeadlessOutputTail*>(reinterpret_cast<char*>(output) + sizeof(wlr_output));
    const bool recognised = tail->backend == static_cast<void*>(output->backend) && tail->link.next &&
                            tail->link.prev && tail->link.next->prev == &tail->link &&
                            tail->frame_delay == 1000000 / output->refresh && tail->frame_timer;
    if (!recognised)
        return false;
    wl_event_source_timer_update(tail->frame_timer, 0);  // 0 disarms; only the timer's own callback re-arms it
    return true;
}

}  // namespace kiln::compositor
