// Output frame handling: wlr_scene decides what is damaged and whether a client buffer can be scanned out directly.
#include "compositor/output.hpp"

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

Output::Output(Server& server, wlr_output* output, wlr_scene_output* scene_output)
    : server_(server), output_(output), scene_output_(scene_output)
{
    frame_.connect(&output_->events.frame, [this](void*) { render_frame(); });
    destroy_.connect(&output_->events.destroy, [this](void*) { server_.remove_output(this); });
}

void Output::render_frame()
{
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
