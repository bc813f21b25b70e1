// Output frame handling: wlr_scene decides what is damaged and whether a client buffer can be scanned out directly.
#include "compositor/output/output.hpp"

#include "compositor/server.hpp"

#include <ctime>

namespace kiln::compositor {
namespace {

double thread_cpu_ms()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1000.0 + static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace

Output::Output(Server& server, wlr_output* output, wlr_scene_output* scene_output, wlr_presentation* presentation)
    : server_(server), output_(output), scene_output_(scene_output), presentation_(presentation)
{
    frame_.connect(&output_->events.frame, [this](void*) { render_frame(); });
    present_.connect(&output_->events.present,
                     [this](void* data) { presented(*static_cast<wlr_output_event_present*>(data)); });
    destroy_.connect(&output_->events.destroy, [this](void*) { server_.remove_output(this); });
}

Output::~Output()
{
    for (auto& pending : feedback_)
        wlr_presentation_feedback_destroy(pending.feedback);
}

// wlroots 0.15's scene helper (wlr_presentation_surface_sampled_on_output) waits for the output's commit event, but
// the headless backend reports presentation from inside the commit, before that event: its clients never hear back.
// kiln samples surfaces itself, tags them with the commit they will be part of, and answers on the present event.
void Output::sample_surfaces()
{
    const uint32_t next_seq = output_->commit_seq + 1;
    for (auto& pending : feedback_)
        pending.commit_seq = next_seq;  // not committed last time: they ride on the next commit
    wlr_scene_output_for_each_surface(
        scene_output_,
        [](wlr_surface* surface, int, int, void* data) noexcept {
            auto* self = static_cast<Output*>(data);
            if (wlr_presentation_feedback* feedback = wlr_presentation_surface_sampled(self->presentation_, surface))
                self->feedback_.push_back({feedback, self->output_->commit_seq + 1});
        },
        this);
}

void Output::presented(const wlr_output_event_present& event)
{
    wlr_presentation_event presentation{};
    wlr_presentation_event_from_output(&presentation, &event);
    std::erase_if(feedback_, [&](PendingFeedback& pending) {
        if (pending.commit_seq != event.commit_seq)
            return false;
        if (event.presented)
            wlr_presentation_feedback_send_presented(pending.feedback, &presentation);
        // Destroying a feedback that was not presented tells the client it was discarded.
        wlr_presentation_feedback_destroy(pending.feedback);
        return true;
    });
}

void Output::render_frame()
{
    sample_surfaces();
    // wlr_scene_output_commit returns without committing when nothing on this output changed (damage tracking);
    // a frame counts only when the output's commit sequence moved. prev_scanout says the scene put a client buffer
    // on the primary plane instead of compositing.
    const double cpu_before = thread_cpu_ms();
    const uint32_t seq_before = output_->commit_seq;
    wlr_scene_output_commit(scene_output_);
    const double cpu = thread_cpu_ms() - cpu_before;
    if (output_->commit_seq != seq_before)
        server_.frame_rendered(cpu, scene_output_->prev_scanout);

    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    wlr_scene_output_send_frame_done(scene_output_, &now);
}

}  // namespace kiln::compositor
