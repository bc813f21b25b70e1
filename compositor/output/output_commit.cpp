// Output's commit half: a drawn frame from its fence to the screen (read back where the backend shows memory),
// committed as wlroots' back buffer, its ring slot and the client buffers it sampled given back, and presentation
// feedback sent for the commit it went out with. The drawing half is output.cpp.
#include "compositor/output/output.hpp"

#include "compositor/bridge/render_bridge.hpp"
#include "compositor/log.hpp"
#include "compositor/output/sync/buffer_release.hpp"
#include "renderer/types.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

namespace kiln::compositor {
namespace {

renderer::Box to_box(const pixman_box32_t& b)
{
    return {b.x1, b.y1, b.x2 - b.x1, b.y2 - b.y1};
}

// wp_presentation_feedback.kind.zero_copy: the client's own buffer was on screen.
constexpr uint32_t presentation_zero_copy = 0x8;
// wp_presentation_feedback.kind.vsync: shown at a refresh boundary, not mid-scanout.
constexpr uint32_t presentation_vsync = 0x1;

}  // namespace

void Output::fence_signalled(uint64_t id)
{
    for (auto& frame : frames_) {
        if (frame->id != id)
            continue;
        frame->fence_done = true;
        const double render_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frame->started).count();
        hooks_.frame_fenced(render_ms);
        frame->fenced_ms = render_ms;
        // A decaying maximum: one slow frame raises the estimate at once, fast ones lower it gradually.
        render_estimate_ms_ = std::max(render_ms, render_estimate_ms_ * 0.9 + render_ms * 0.1);
        if (frame->readback && !frame->committed) {
            std::vector<renderer::Box> boxes;
            for (const auto& rect : frame->damage.rects())
                boxes.push_back(to_box(rect));
            bridge_.read_back(frame->buffer, boxes);
            frame->ready = std::chrono::steady_clock::now();
        }
        break;
    }
    commit_ready();
    // Frames leave in order once committed (or given up) and done on the GPU.
    while (!frames_.empty() && frames_.front()->fence_done && frames_.front()->committed) {
        finish(*frames_.front());
        frames_.pop_front();
    }
}

void Output::commit_ready()
{
    if (!backend_ready_)
        return;
    for (auto& frame : frames_) {
        if (frame->committed)
            continue;
        if (frame->readback && !frame->fence_done)
            return;  // its pixels are not in the buffer yet
        commit(*frame);
        return;
    }
}

void Output::commit(Frame& frame)
{
    frame.committed = true;
    if (frame.buffer && (frame.buffer->width != output_->width || frame.buffer->height != output_->height)) {
        // Drawn before a mode change: its size is no longer the output's. Dropped; the next frame redraws all.
        frame.feedback.clear();  // discarded
        pixman_region32_union_rect(&scene_output_->damage->current, &scene_output_->damage->current, 0, 0,
                                   static_cast<unsigned>(output_->width), static_cast<unsigned>(output_->height));
        wlr_output_schedule_frame(output_);
        return;
    }
    wlr_output_set_damage(output_, frame.damage.get());
    const uint32_t seq = output_->commit_seq + 1;
    // wlroots' output damage helper clears the scene's pending damage on every commit; damage that arrived while
    // this frame was drawing belongs to the next one, so it is carried across.
    Region carried;
    carried.add(&scene_output_->damage->current);
    // Queued before the commit: the headless backend reports presentation from inside it.
    for (auto& feedback : frame.feedback)
        feedback_.push_back({std::move(feedback), seq, false});
    frame.feedback.clear();
    const auto commit_started = std::chrono::steady_clock::now();
    const bool ok = commit_composited(frame.buffer);
    pixman_region32_union(&scene_output_->damage->current, &scene_output_->damage->current, carried.get());
    if (!ok) {
        std::erase_if(feedback_, [&](PendingFeedback& pending) {
            return pending.commit_seq == seq;  // destroyed unpresented: discarded
        });
        log::error("output %s: commit failed", output_->name);
        ring_.add_damage(frame.damage);  // the slot did not reach the screen; whatever it was missing, it still is
        // Clients wait for this frame's callbacks: try again on the next turn rather than leave them waiting.
        wlr_output_schedule_frame(output_);
        return;
    }
    backend_ready_ = false;
    if (hooks_.latched)
        hooks_.latched(output_, frame.latched);
    frame.latched.clear();
    // The repaint window must cover everything from the frame's start until its commit is done: drawing, the fence,
    // a read-back, and what commit handlers do (screencopy copies there). Not the wait for the backend between the
    // frame being ready and its commit: a frame drawn ahead waits up to a refresh there, and counting that kept the
    // estimate over half a refresh, so kiln went on drawing ahead for good after one slow frame.
    using ms = std::chrono::duration<double, std::milli>;
    const double to_commit_ms = ms(std::max(frame.ready, frame.started) - frame.started).count() +
                                ms(std::chrono::steady_clock::now() - commit_started).count();
    render_estimate_ms_ = std::max(to_commit_ms, render_estimate_ms_);
    if (!carried.empty())
        wlr_output_schedule_frame(output_);
    // Where nothing outside GL reads the buffer (headless), it is free for the next frame at once: GL runs that
    // frame's draws after this one's, so the ring needs one slot there, not one per frame in flight.
    if (!consumes_pixels_ && frame.buffer) {
        OutputRing::release(frame.buffer);
        frame.buffer = nullptr;
    }
    // Render ahead where a frame must be finished before it is committed and finishing takes more than half a
    // refresh: the next frame is drawn now, into a free slot, and committed at the next frame event, so the output
    // keeps its rate (at most two frames in flight: one queued, one drawing).
    const bool ahead = frame.readback && needs_frame() && !has_uncommitted() && output_->refresh > 0 &&
                       render_estimate_ms_ > 0.5e6 / output_->refresh;
    if (hooks_.frame_paced)
        hooks_.frame_paced(frame.fenced_ms, to_commit_ms, ahead);
    if (ahead)
        render();
}

// wlroots 0.15 expects compositors to draw through wlr_output_attach_render into its own swapchain: only that "back
// buffer" is handed to screencopy, and any other attached buffer counts as a client's, for direct scan-out (refused
// while screencopy holds a render lock or a software cursor shows). A ring buffer is a composited frame with the
// software cursors drawn in, so kiln presents it the way attach_render would: as the back buffer, with the renderer
// bound to it. wlroots' commit bookkeeping looks for the back buffer in its swapchain, which must therefore exist;
// creating it allocates one buffer that is never drawn into (so never resident for shm or dumb buffers).
bool Output::commit_composited(wlr_buffer* buffer)
{
    if (!output_->swapchain)
        wlr_output_preferred_read_format(output_);  // creates the swapchain (attach_render + rollback)
    if (!output_->swapchain) {
        log::error("output %s: wlroots has no swapchain for it", output_->name);
        return false;
    }
    bridge_.bind_buffer(buffer);
    output_->back_buffer = wlr_buffer_lock(buffer);  // released by wlroots (output_clear_back_buffer) in the commit
    wlr_output_attach_buffer(output_, buffer);
    return wlr_output_commit(output_);
}

void Output::finish(Frame& frame)
{
    for (BufferRelease* release : frame.sampled)
        release->render_done({this, frame.id});  // the last frame that read it done, the client may have it back
    frame.sampled.clear();
    if (frame.buffer)
        OutputRing::release(frame.buffer);
    frame.buffer = nullptr;
}

void Output::presented(const wlr_output_event_present& event)
{
    wlr_presentation_event presentation{};
    wlr_presentation_event_from_output(&presentation, &event);
    if (vblank_) {
        // Headless: the frame was composed and committed on the clock's latest tick, which is its vblank.
        const int64_t at = vblank_->last_tick_ns();
        presentation.tv_sec = static_cast<uint64_t>(at / 1'000'000'000);
        presentation.tv_nsec = static_cast<uint32_t>(at % 1'000'000'000);
        presentation.seq = vblank_->ticks();
        presentation.refresh = static_cast<uint32_t>(vblank_->period_ns());
        presentation.flags |= presentation_vsync;
    }
    std::erase_if(feedback_, [&](PendingFeedback& pending) {
        if (pending.commit_seq != event.commit_seq)
            return false;
        if (event.presented) {
            wlr_presentation_event with_kind = presentation;
            if (pending.zero_copy)
                with_kind.flags |= presentation_zero_copy;
            pending.feedback->presented(with_kind);
        }
        return true;  // destroying a feedback that was not presented tells the client it was discarded
    });
    if (event.presented) {
        last_presented_ns_ = static_cast<int64_t>(presentation.tv_sec) * 1'000'000'000 + presentation.tv_nsec;
        refresh_ns_ = presentation.refresh;
        if (hooks_.presented)
            hooks_.presented(output_, last_presented_ns_, refresh_ns_);
    }
}

}  // namespace kiln::compositor
