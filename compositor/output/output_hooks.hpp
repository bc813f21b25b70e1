// OutputHooks: the few things an Output asks of the compositor around it (session, background, the full-redraw
// option), what it reports back (frame statistics) and how it goes away, instead of the whole Server.
#pragma once

#include "renderer/colour/image_description.hpp"
#include "renderer/types.hpp"
#include "renderer/yuv.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

struct wlr_output;
struct wlr_surface;

namespace kiln::compositor {

class Output;

// A surface's state as an output latched it for presentation: everything it committed up to `seq` is in the frame.
struct LatchedSurface {
    wlr_surface* surface;
    uint32_t seq;
};

struct OutputHooks {
    // False while kiln's VT is switched away: output commits fail, so nothing is drawn.
    std::function<bool()> session_active;
    // What no window covers (kiln.ini's [background]; read every frame, as a reload may change it).
    std::function<renderer::Color()> background;
    // Options' full_redraw: every frame drawn whole, unculled and blended (the naive reference).
    std::function<bool()> full_redraw;
    // Each surface's opacity factor (alpha-modifier-v1), 0 to 1, drawn into its pixels; unset: 1.
    std::function<float(wlr_surface*)> surface_alpha;
    // Each surface's YCbCr coefficients and range (color-representation-v1) for kiln's YUV conversion; unset: the
    // renderer's default (BT.601 limited).
    std::function<renderer::YuvEncoding(wlr_surface*)> surface_yuv;
    // Each surface's colour description and render intent (color-management-v1), converted onto the output by the
    // renderer; unset, or a null / plain sRGB description: drawn as it is, through the ordinary programs.
    std::function<renderer::SurfaceColour(wlr_surface*)> surface_colour;
    // What the output's pixels mean (kiln.ini's color-profile=, OutputColours), read at each frame: every surface is
    // converted onto it, and such a frame is neither composed on the CPU nor scanned out. Unset or null: sRGB.
    std::function<std::shared_ptr<const renderer::ImageDescription>(const wlr_output*)> output_colour;
    // --debug-render-delay (tests only): a GL frame's render-done is held back until the frame is this old.
    int debug_render_delay_ms = 0;
    // The wlr_output was destroyed: the owner drops this Output (it must not be used after the call).
    std::function<void(Output*)> destroyed;
    // The output latched these surface states for presentation (a frame holding them was committed, or nothing was
    // left to draw when frame callbacks went out): wp_fifo_v1's latching deadline. Unset: nothing.
    std::function<void(wlr_output*, std::span<const LatchedSurface>)> latched;
    // The output starts composing a frame it will present at `presentation_ns` (CLOCK_MONOTONIC): commit-timing
    // applies the updates due by then, so the frame draws them. Unset: nothing.
    std::function<void(wlr_output*, int64_t presentation_ns)> composing;
    // The output presented a frame at `when_ns` (CLOCK_MONOTONIC; headless: its virtual vblank) and refreshes every
    // `refresh_ns` (0: unknown); both 0 when the output goes (commit-timing's predictions). Unset: nothing.
    std::function<void(wlr_output*, int64_t when_ns, int64_t refresh_ns)> presented;
    // A surface whose frame callbacks are held back (its window is suspended: wholly covered or off every
    // output). Unset: none.
    std::function<bool(wlr_surface*)> frame_callbacks_held;

    // Frame statistics (--stats).
    std::function<void(double cpu_ms, bool direct_scanout)> frame_rendered;
    std::function<void(size_t surfaces)> frame_culled;  // wholly under opaque ones in the damage, so not drawn
    std::function<void(double ms)> frame_fenced;         // from a frame's start until its render-done fence
    // A frame was committed: how long it took to its render-done and to its commit (what the frame-time estimate
    // learns from; 0 where not measured), and whether the next frame was drawn ahead at once because of it.
    std::function<void(double fenced_ms, double to_commit_ms, bool drew_ahead)> frame_paced;
    std::function<void()> frame_composed_on_cpu;
};

}  // namespace kiln::compositor
