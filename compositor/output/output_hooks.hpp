// OutputHooks: the few things an Output asks of the compositor around it (session, background, the full-redraw
// option), what it reports back (frame statistics) and how it goes away, instead of the whole Server.
#pragma once

#include "renderer/types.hpp"

#include <cstddef>
#include <functional>

struct wlr_output;
struct wlr_surface;

namespace kiln::compositor {

class Output;

struct OutputHooks {
    // False while kiln's VT is switched away: output commits fail, so nothing is drawn.
    std::function<bool()> session_active;
    // What no window covers (kiln.ini's [background]; read every frame, as a reload may change it).
    std::function<renderer::Color()> background;
    // Options' full_redraw: every frame drawn whole, unculled and blended (the naive reference).
    std::function<bool()> full_redraw;
    // Each surface's opacity factor (alpha-modifier-v1), 0 to 1, drawn into its pixels; unset: 1.
    std::function<float(wlr_surface*)> surface_alpha;
    // --debug-render-delay (tests only): a GL frame's render-done is held back until the frame is this old.
    int debug_render_delay_ms = 0;
    // The wlr_output was destroyed: the owner drops this Output (it must not be used after the call).
    std::function<void(Output*)> destroyed;
    // The surfaces on the output were told to draw their next frame (frame callbacks sent): what they had
    // committed has been drawn (wp_fifo_v1's latching deadline). Unset: nothing.
    std::function<void(wlr_output*)> frame_callbacks_sent;
    // A surface whose frame callbacks are held back (its window is suspended: wholly covered or off every
    // output). Unset: none.
    std::function<bool(wlr_surface*)> frame_callbacks_held;

    // Frame statistics (--stats).
    std::function<void(double cpu_ms, bool direct_scanout)> frame_rendered;
    std::function<void(size_t surfaces)> frame_culled;  // wholly under opaque ones in the damage, so not drawn
    std::function<void(double ms)> frame_fenced;         // from a frame's start until its render-done fence
    std::function<void()> frame_rendered_ahead;
    std::function<void()> frame_composed_on_cpu;
};

}  // namespace kiln::compositor
