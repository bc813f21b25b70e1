// Output: one wlr_output and kiln's frame pipeline for it: damage from the scene, a visible set culled front to
// back, drawn into a slot of kiln's own three-buffer ring, fenced, committed once the fence has signalled, and the
// client buffers it sampled held until then.
#pragma once

#include "compositor/backend/drm_connector_colour.hpp"
#include "compositor/listener.hpp"
#include "compositor/output/output_hooks.hpp"
#include "compositor/output/output_ring.hpp"
#include "compositor/output/sync/commit_feedback.hpp"
#include "compositor/output/virtual_vblank.hpp"
#include "compositor/output/visible_set.hpp"
#include "compositor/region.hpp"
#include "compositor/wlr.hpp"

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

namespace kiln::renderer {
class RenderFence;
}  // namespace kiln::renderer

namespace kiln::compositor {

class RenderBridge;
class FenceEvents;
class BufferRelease;
class BufferReleases;

class Output {
public:
    // Draws `scene_output` (whose scene it walks) into `output` through `bridge`, on the output's display's event
    // loop; `presentation` may be null.
    // `releases` tells which client buffers its frames read in place, and sends their releases.
    Output(OutputHooks hooks, RenderBridge& bridge, FenceEvents& fences, BufferReleases& releases,
           wlr_allocator* allocator, wlr_output* output, wlr_scene_output* scene_output, CommitFeedback* presentation);
    ~Output();
    Output(const Output&) = delete;
    Output& operator=(const Output&) = delete;

    wlr_output* wlr() const { return output_; }
    size_t ring_slots() const { return ring_.allocated(); }
    // Headless: refreshes kiln's loop was too busy to take (no frame could be on them).
    uint64_t ticks_skipped() const { return vblank_ ? vblank_->skipped() : 0; }
    // Adds to `out` (buffer pixels) what the scene changed that no committed frame shows yet: its pending damage and
    // what frames drawn but not committed redraw. Capture draws the scene as it is now, and must count these too.
    void add_unshown_damage(Region& out) const;

private:
    // A composed frame from drawing until its fence has signalled.
    struct Frame {
        uint64_t id = 0;
        wlr_buffer* buffer = nullptr;        // the ring slot's buffer, locked by kiln
        Region damage;                       // what this frame drew (the slot's missing area)
        std::vector<BufferRelease*> sampled;  // client buffers it read in place, each kept until its render-done
        std::vector<LatchedSurface> latched;  // the surface states it holds, latched when it is committed
        CommitFeedback::Feedbacks feedback;
        bool fence_done = false;
        bool readback = false;   // its pixels must be copied into the buffer's memory before it is committed
        bool committed = false;
        double cpu_ms = 0;
        double fenced_ms = 0;  // from its start to its render-done, once signalled
        std::chrono::steady_clock::time_point started;
        std::chrono::steady_clock::time_point ready;  // could be committed from then (drawn; fenced and read back)
    };

    void on_frame();
    void on_vblank();
    void compose();
    int64_t next_presentation_ns() const;
    bool has_uncommitted() const;
    int repaint_delay_ms() const;
    bool needs_frame() const;
    void render();
    bool try_scanout(const VisibleSet& visible);
    // render()'s steps: the scene's damage into the ring; the CPU or GL path for this frame (a switch redraws
    // every slot); the client buffers the frame read in place held (GL, until its render-done) or marked read (CPU);
    // and the bookkeeping once drawn (feedback, the fence watched, the commit).
    void take_scene_damage();
    bool choose_path(OutputRing::Slot& slot, bool full_redraw);
    void hold_sampled(Frame& frame, bool on_cpu);
    void frame_drawn(std::unique_ptr<Frame> frame, std::shared_ptr<renderer::RenderFence> fence, bool on_cpu,
                     double cpu_before);
    void render_done(uint64_t id);
    void delayed_done();
    void fence_signalled(uint64_t id);
    void commit_ready();
    void commit(Frame& frame);
    bool commit_composited(wlr_buffer* buffer);
    void finish(Frame& frame);
    void presented(const wlr_output_event_present& event);

    // Presentation feedback waiting for the output commit it belongs to.
    struct PendingFeedback {
        std::unique_ptr<PresentationFeedback> feedback;
        uint32_t commit_seq;
        bool zero_copy;
    };

    OutputHooks hooks_;
    RenderBridge& bridge_;
    FenceEvents& fences_;
    BufferReleases& releases_;
    wlr_output* output_;
    wlr_scene_output* scene_output_;
    CommitFeedback* presentation_;
    OutputRing ring_;
    VisibleSet visible_;
    std::deque<std::unique_ptr<Frame>> frames_;  // oldest first: drawing or waiting to be committed
    std::vector<PendingFeedback> feedback_;
    uint64_t next_frame_id_ = 1;
    wl_event_source* repaint_timer_ = nullptr;
    // --debug-render-delay: frames whose fence signalled before the delay was up, oldest first (one delay for all).
    std::deque<uint64_t> delayed_;
    wl_event_source* delay_timer_ = nullptr;
    // Headless outputs are paced by kiln's own clock, not wlroots' frame events (see VirtualVblank).
    std::unique_ptr<VirtualVblank> vblank_;
    int64_t last_presented_ns_ = 0;  // the latest presentation (CLOCK_MONOTONIC) and the refresh period, 0: unknown
    int64_t refresh_ns_ = 0;
    bool headless_timer_stopped_ = false;  // wlroots' own headless frame timer disarmed (headless_frame_timer.hpp)
    double render_estimate_ms_ = 0;  // how long frames take from start to render-done, recently (decaying max)
    bool backend_ready_ = true;  // the backend takes a new commit (a frame event came since the last one)
    // The output's description for the frame being drawn (OutputHooks::output_colour; null: sRGB).
    std::shared_ptr<const renderer::ImageDescription> colour_;
    // On DRM: HDR_OUTPUT_METADATA and Colorspace set from colour_ (nothing on other backends).
    DrmConnectorColour connector_colour_;
    bool composed_on_cpu_ = false;  // the last frame was composed on the CPU (see render())
    bool composed_linear_ = false;  // the last frame was composed in linear light (see render())
    bool consumes_pixels_;       // the backend shows the buffer's memory (nested, KMS); headless shows nothing
    // Fence callbacks hold a weak reference: an output destroyed while frames are drawing ignores their fences.
    std::shared_ptr<Output*> alive_ = std::make_shared<Output*>(this);

    wl::Listener frame_;
    wl::Listener present_;
    wl::Listener mode_;
    wl::Listener destroy_;
};

}  // namespace kiln::compositor
