// Output's drawing half: when to draw, what to draw (culled, per damage rectangle) into which ring slot, on the GPU
// or the CPU or by direct scan-out, and the wait for its fence; committing, giving client buffers back once the frames
// that sampled them are done, and presentation feedback are output_commit.cpp.
#include "compositor/output/output.hpp"

#include "compositor/bridge/render_bridge.hpp"
#include "compositor/log.hpp"
#include "compositor/output/cpu_composition.hpp"
#include "compositor/output/fence_events.hpp"
#include "compositor/output/frame_composer.hpp"
#include "compositor/output/frame_factory.hpp"
#include "compositor/output/headless_frame_timer.hpp"
#include "compositor/output/sync/buffer_releases.hpp"
#include "renderer/colour/colour_pipeline.hpp"
#include "renderer/render_fence.hpp"

#include <algorithm>
#include <cmath>
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

Output::Output(OutputHooks hooks, RenderBridge& bridge, FenceEvents& fences, BufferReleases& releases,
               wlr_allocator* allocator, wlr_output* output, wlr_scene_output* scene_output,
               CommitFeedback* presentation)
    : hooks_(std::move(hooks)),
      bridge_(bridge),
      fences_(fences),
      releases_(releases),
      output_(output),
      scene_output_(scene_output),
      presentation_(presentation),
      ring_(allocator, output, bridge.render_formats()),
      connector_colour_(output),
      consumes_pixels_(!wlr_output_is_headless(output))
{
    visible_.set_surface_alpha(hooks_.surface_alpha);
    visible_.set_surface_yuv(hooks_.surface_yuv);
    visible_.set_surface_colour(hooks_.surface_colour);
    frame_.connect(&output_->events.frame, [this](void*) { on_frame(); });
    present_.connect(&output_->events.present,
                     [this](void* data) { presented(*static_cast<wlr_output_event_present*>(data)); });
    mode_.connect(&output_->events.mode, [this](void*) {
        ring_.reset();
        if (vblank_)
            vblank_->set_refresh(output_->refresh);
    });
    if (wlr_output_is_headless(output_)) {
        vblank_ = std::make_unique<VirtualVblank>(wl_display_get_event_loop(output_->display),
                                                  [this] { on_vblank(); });
        if (vblank_->valid()) {
            vblank_->set_refresh(output_->refresh);
            headless_timer_stopped_ = stop_headless_frame_timer(output_);
        } else {
            vblank_.reset();
        }
    }
    repaint_timer_ = wl_event_loop_add_timer(
        wl_display_get_event_loop(output_->display),
        [](void* data) noexcept -> int {
            static_cast<Output*>(data)->compose();
            return 0;
        },
        this);
    if (hooks_.debug_render_delay_ms > 0)
        delay_timer_ = wl_event_loop_add_timer(
            wl_display_get_event_loop(output_->display),
            [](void* data) noexcept -> int {
                static_cast<Output*>(data)->delayed_done();
                return 0;
            },
            this);
    destroy_.connect(&output_->events.destroy, [this](void*) { hooks_.destroyed(this); });
}

Output::~Output()
{
    *alive_ = nullptr;
    if (repaint_timer_)
        wl_event_source_remove(repaint_timer_);
    if (delay_timer_)
        wl_event_source_remove(delay_timer_);
    // Frames still drawing: their fences are forgotten; buffers go back now, as the output itself goes away.
    for (auto& frame : frames_) {
        frame->feedback.clear();  // discarded
        finish(*frame);
    }
    frames_.clear();
    feedback_.clear();  // discarded
    if (hooks_.presented)
        hooks_.presented(output_, 0, 0);  // gone: no more refreshes to predict
}

bool Output::needs_frame() const
{
    return output_->needs_frame || pixman_region32_not_empty(&scene_output_->damage->current);
}

void Output::add_unshown_damage(Region& out) const
{
    Region pending;
    pending.add(&scene_output_->damage->current);
    if (output_->scale != std::floor(output_->scale))
        wlr_region_expand(pending.get(), pending.get(), 1);  // as render() widens it
    pending.intersect_rect(0, 0, output_->width, output_->height);
    out.add(pending);
    for (const auto& frame : frames_)
        if (!frame->committed)
            out.add(frame->damage);
}

void Output::on_frame()
{
    // Headless: wlroots' frame events (its timer, and wlr_output_schedule_frame) are not vblanks; the next tick of
    // kiln's clock composes whatever is due.
    if (vblank_)
        return;
    backend_ready_ = true;
    commit_ready();
    const int delay = repaint_delay_ms();
    if (delay > 0 && backend_ready_ && !has_uncommitted() && needs_frame()) {
        // Compose late in the refresh period: commits that arrive meanwhile make this frame, not the next one.
        wl_event_source_timer_update(repaint_timer_, delay);
        return;
    }
    compose();
}

void Output::on_vblank()
{
    // The tick is this output's frame event: wlroots refuses a buffer commit until one was sent since the last.
    wlr_output_send_frame(output_);
    backend_ready_ = true;
    commit_ready();
    compose();
}

bool Output::has_uncommitted() const
{
    return std::any_of(frames_.begin(), frames_.end(), [](const auto& f) { return !f->committed; });
}

// weston's repaint window, sway's max_render_time, from measurement: on KMS a frame event comes at the flip, and the
// next flip is a refresh period away; the frame starts as late as the recent render times allow, with a margin.
// Other backends pace by their own clocks (headless: kiln's VirtualVblank; nested: the host's frame callbacks), so
// composing starts at once there.
int Output::repaint_delay_ms() const
{
    if (!wlr_output_is_drm(output_) || output_->refresh <= 0)
        return 0;
    const double period_ms = 1e6 / output_->refresh;
    constexpr double margin_ms = 7.0;  // weston's default repaint window
    return std::max(0, static_cast<int>(period_ms - render_estimate_ms_ - margin_ms));
}

void Output::compose()
{
    // Frames already committed only wait for their fence to give buffers back: they do not hold the next one.
    const bool waiting = has_uncommitted();
    // While kiln's VT is switched away every commit fails: nothing is drawn (nor a failed commit retried in a loop)
    // until the session is back, when wlroots' restoring modeset brings the next frame event.
    const bool can_draw = backend_ready_ && !waiting && hooks_.session_active();
    // Timed updates due by this frame's presentation are applied now, so that this frame draws them.
    if (can_draw && hooks_.composing)
        hooks_.composing(output_, next_presentation_ns());
    if (can_draw && needs_frame())
        render();
    // While a frame cannot be shown yet, clients are not asked for another: it would be drawn for nothing.
    if (waiting || (needs_frame() && backend_ready_))
        return;
    // Frame callbacks go to the surfaces on this output only: one elsewhere (or nowhere) is throttled. With nothing
    // left to draw, what they have applied is on screen or in the frame just committed: their latching deadline.
    struct Done {
        timespec now{};
        bool latch;
        std::vector<LatchedSurface> latched;
        const OutputHooks& hooks;
    } done{{}, !needs_frame(), {}, hooks_};
    clock_gettime(CLOCK_MONOTONIC, &done.now);
    // The buffers these frames' commits replaced go back first, in the same flush as the callbacks: a client that
    // double-buffers redraws from its callback and must find the buffer it replaced free by then (weston-simple-damage
    // aborts otherwise), as weston and sway order it.
    releases_.flush();
    wlr_scene_output_for_each_surface(
        scene_output_,
        [](wlr_surface* surface, int, int, void* data) noexcept {
            auto* d = static_cast<Done*>(data);
            if (d->latch)
                d->latched.push_back({surface, surface->current.seq});
            // A suspended window's callbacks wait (its update still counts as latched: fifo must not stall).
            if (d->hooks.frame_callbacks_held && d->hooks.frame_callbacks_held(surface))
                return;
            wlr_surface_send_frame_done(surface, &d->now);
        },
        &done);
    if (done.latch && hooks_.latched)
        hooks_.latched(output_, done.latched);
}

// When a frame composed now is presented: headless, at the virtual vblank's latest tick (see presented()); elsewhere
// at the first refresh after now, predicted from the last presentation; unknown: now.
int64_t Output::next_presentation_ns() const
{
    if (vblank_)
        return vblank_->last_tick_ns();
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    const int64_t now = static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
    if (last_presented_ns_ <= 0 || refresh_ns_ <= 0 || now < last_presented_ns_)
        return now;
    return last_presented_ns_ + ((now - last_presented_ns_) / refresh_ns_ + 1) * refresh_ns_;
}

void Output::render()
{
    const double cpu_before = thread_cpu_ms();
    const auto started = std::chrono::steady_clock::now();
    if (!output_->enabled || output_->width <= 0 || output_->height <= 0)
        return;
    take_scene_damage();
    // The same object until a reload changes this output's description: the connector and the ring follow a change.
    if (auto colour = hooks_.output_colour ? hooks_.output_colour(output_) : nullptr; colour != colour_) {
        colour_ = std::move(colour);
        // On DRM an HDR description is signalled to the display and scanned out at 10 bits where the plane takes them.
        connector_colour_.apply(colour_.get());
        ring_.want_ten_bits(wlr_output_is_drm(output_) && colour_ && !colour_->output_table &&
                            (colour_->transfer == renderer::TransferFunction::st2084_pq ||
                             colour_->transfer == renderer::TransferFunction::hlg));
    }
    OutputRing::Slot* slot = ring_.acquire();
    if (!slot) {
        // Every slot is on screen, queued or drawing: a release schedules the next frame.
        wlr_output_schedule_frame(output_);
        return;
    }
    const bool full_redraw = hooks_.full_redraw();
    if (full_redraw)
        slot->damage = Region(0, 0, output_->width, output_->height);
    visible_.build(scene_output_->scene, output_, bridge_.wlr(), scene_output_->x, scene_output_->y, slot->damage,
                   !full_redraw);
    if (try_scanout(visible_)) {
        hooks_.frame_culled(visible_.culled());
        OutputRing::release(slot->buffer);
        hooks_.frame_rendered(thread_cpu_ms() - cpu_before, true);
        return;
    }
    const bool on_cpu = choose_path(*slot, full_redraw);
    const bool linear_light = !on_cpu && linear_light_frame(visible_, colour_.get());
    if (linear_light != composed_linear_) {
        // Blending changes space: translucent pixels outside the damage would keep the other space's blend, and
        // no slot holds this space's pixels, so each is redrawn whole once.
        composed_linear_ = linear_light;
        ring_.add_damage(Region(0, 0, output_->width, output_->height));
        visible_.build(scene_output_->scene, output_, bridge_.wlr(), scene_output_->x, scene_output_->y, slot->damage,
                       !full_redraw);
    }
    hooks_.frame_culled(visible_.culled());

    auto frame = std::make_unique<Frame>();
    frame->id = next_frame_id_++;
    frame->buffer = slot->buffer;
    frame->damage = slot->damage;
    frame->started = started;
    OutputFrame drawing = begin_output_frame(bridge_, on_cpu, output_, slot->buffer, frame->damage, colour_.get(),
                                                 linear_light);
    if (!drawing.frame) {
        OutputRing::release(slot->buffer);
        return;
    }
    compose_frame(visible_, {output_->transform_matrix, hooks_.background(), full_redraw}, *drawing.frame);
    hold_sampled(*frame, on_cpu);
    for (const auto& v : visible_.on_output())
        if (v.surface)
            frame->latched.push_back({v.surface, v.surface->current.seq});
    std::shared_ptr<renderer::RenderFence> fence = drawing.frame->finish();
    slot->damage.clear();
    // Commit before the fence where nobody reads the buffer's memory: headless shows nothing, and a dma-buf
    // target is ordered by the kernel's implicit fences. A CPU-backed target shown by a nested host or KMS is read
    // back after its fence, only its damaged rectangles.
    frame->readback = consumes_pixels_ && drawing.target_is_cpu;
    frame_drawn(std::move(frame), std::move(fence), on_cpu, cpu_before);
}

void Output::take_scene_damage()
{
    // The scene's damage since the last frame reaches every slot of the ring; the slot drawn now redraws what it
    // is missing (its age), nothing more.
    Region damage;
    damage.add(&scene_output_->damage->current);
    pixman_region32_clear(&scene_output_->damage->current);
    if (output_->scale != std::floor(output_->scale)) {
        // wlroots rounds a node's damage by its absolute edges, VisibleSet places it by offsets rounded one by one
        // (visible_set.cpp): the two can differ by a pixel at a fractional scale.
        wlr_region_expand(damage.get(), damage.get(), 1);
    }
    damage.intersect_rect(0, 0, output_->width, output_->height);
    ring_.add_damage(damage);
}

bool Output::choose_path(OutputRing::Slot& slot, bool full_redraw)
{
    // Where GL is itself software, a frame of unscaled shm windows is composed by pixman, straight into the buffer.
    const bool on_cpu = bridge_.composition().cpu() && can_compose_on_cpu(visible_, output_, colour_.get(), slot.buffer);
    bridge_.composition().frame_composed(on_cpu);
    if (on_cpu != composed_on_cpu_) {
        // The two paths keep a slot's pixels in different places (its memory, or GL's framebuffer for it): after a
        // switch no slot holds the other path's pixels where this one reads them, so each is redrawn whole once.
        composed_on_cpu_ = on_cpu;
        ring_.add_damage(Region(0, 0, output_->width, output_->height));
        visible_.build(scene_output_->scene, output_, bridge_.wlr(), scene_output_->x, scene_output_->y, slot.damage,
                       !full_redraw);
    }
    return on_cpu;
}

void Output::hold_sampled(Frame& frame, bool on_cpu)
{
    for (const auto& v : visible_.draws()) {
        BufferRelease* release = v.texture && v.surface ? releases_.of(v.texture) : nullptr;
        if (!release)
            continue;
        if (on_cpu) {
            release->read_by_cpu_frame();  // read in place and done: released when a later commit replaces it
            continue;
        }
        // A dma-buf is read in place until the fence: its BufferRelease keeps it for this frame. An shm texture is
        // kiln's own copy, and GL orders a later upload into it after this frame's reads; holding it would only make
        // wlroots upload whole buffers.
        if (std::find(frame.sampled.begin(), frame.sampled.end(), release) == frame.sampled.end()) {
            release->sampled_by({this, frame.id}, &v.surface->buffer->base);
            frame.sampled.push_back(release);
        }
    }
}

void Output::frame_drawn(std::unique_ptr<Frame> frame, std::shared_ptr<renderer::RenderFence> fence, bool on_cpu,
                         double cpu_before)
{
    if (presentation_)
        for (const auto& v : visible_.on_output())
            if (v.surface)
                for (auto& feedback : presentation_->sampled(v.surface))
                    frame->feedback.push_back(std::move(feedback));
    if (on_cpu)
        RenderBridge::set_memory_current(frame->buffer, true);
    frame->cpu_ms = thread_cpu_ms() - cpu_before;
    // Composed on the CPU, the pixels are in the buffer's memory already: nothing to fence or read back, and no
    // client buffer to hold (what was read in place was read).
    frame->fence_done = on_cpu;
    Frame* raw = frame.get();
    frames_.push_back(std::move(frame));
    const bool fenced = !on_cpu && fence != nullptr;  // `fence` is moved into the watch below
    if (fenced) {
        std::weak_ptr<Output*> alive = alive_;
        const uint64_t id = raw->id;
        fences_.watch(std::move(fence), [alive, id] {
            if (auto self = alive.lock(); self && *self)
                (*self)->render_done(id);
        });
    }  // without one, GlFrame waited for the frame (glFinish): it is done now (render_done below)
    raw->ready = std::chrono::steady_clock::now();
    const uint64_t id = raw->id;
    if (on_cpu)
        hooks_.frame_composed_on_cpu();
    hooks_.frame_rendered(raw->cpu_ms, false);
    commit_ready();
    if (on_cpu)
        fence_signalled(id);
    else if (!fenced)
        render_done(id);
}

void Output::render_done(uint64_t id)
{
    const int delay_ms = hooks_.debug_render_delay_ms;
    const auto frame = std::find_if(frames_.begin(), frames_.end(), [id](const auto& f) { return f->id == id; });
    if (delay_ms > 0 && delay_timer_ && frame != frames_.end()) {
        const auto due = (*frame)->started + std::chrono::milliseconds(delay_ms);
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(due - std::chrono::steady_clock::now());
        if (left.count() > 0) {
            if (delayed_.empty())
                wl_event_source_timer_update(delay_timer_, static_cast<int>(left.count()));
            delayed_.push_back(id);
            return;
        }
    }
    fence_signalled(id);
}

void Output::delayed_done()
{
    const auto delay = std::chrono::milliseconds(hooks_.debug_render_delay_ms);
    while (!delayed_.empty()) {
        const uint64_t id = delayed_.front();
        const auto frame = std::find_if(frames_.begin(), frames_.end(), [id](const auto& f) { return f->id == id; });
        if (frame != frames_.end()) {
            const auto left = std::chrono::ceil<std::chrono::milliseconds>((*frame)->started + delay -
                                                                          std::chrono::steady_clock::now());
            if (left.count() > 0) {
                wl_event_source_timer_update(delay_timer_, static_cast<int>(left.count()));
                return;
            }
        }
        delayed_.pop_front();
        fence_signalled(id);  // may render ahead, which may queue another frame here
    }
}

bool Output::try_scanout(const VisibleSet& visible)
{
    if (visible.on_output().size() != 1)
        return false;
    const VisibleNode& v = visible.on_output().front();
    if (!v.surface)
        return false;  // a rectangle alone: nothing to scan out
    if (!v.fully_opaque || !v.exact || v.box.x != 0 || v.box.y != 0 || v.box.width != output_->width ||
        v.box.height != output_->height || !v.surface->buffer)
        return false;
    if (!renderer::is_plain(v.colour) || (colour_ && !colour_->is_plain_srgb()))
        return false;  // the output would show the client's values unconverted
    wlr_buffer* buffer = &v.surface->buffer->base;
    wlr_dmabuf_attributes dmabuf{};
    if (!wlr_buffer_get_dmabuf(buffer, &dmabuf))
        return false;
    wlr_output_attach_buffer(output_, buffer);
    if (!wlr_output_test(output_)) {
        wlr_output_rollback(output_);
        return false;
    }
    if (presentation_)
        for (auto& feedback : presentation_->sampled(v.surface))
            feedback_.push_back({std::move(feedback), output_->commit_seq + 1, true});
    if (BufferRelease* release = releases_.of(v.texture))
        release->shown();
    // The backend holds the buffer while it is on screen; the client gets it back when the next frame replaces it.
    Region carried;
    carried.add(&scene_output_->damage->current);
    const bool ok = wlr_output_commit(output_);
    pixman_region32_union(&scene_output_->damage->current, &scene_output_->damage->current, carried.get());
    if (ok) {
        backend_ready_ = false;
        if (hooks_.latched) {
            const LatchedSurface shown{v.surface, v.surface->current.seq};
            hooks_.latched(output_, std::span(&shown, 1));
        }
    }
    return ok;
}

}  // namespace kiln::compositor
