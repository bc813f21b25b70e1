// Stopping wlroots 0.15's own frame timer on a headless output, which kiln's VirtualVblank replaces.
#pragma once

#include "compositor/wlr.hpp"

namespace kiln::compositor {

// wlroots 0.15's headless output runs a free 16 ms timer that sends frame events whether or not anything was drawn;
// kiln paces the output by its VirtualVblank and ignores them, so each was a wakeup of the whole compositor for
// nothing (about 62 a second, as many as kiln's real frames). The timer lives in wlroots' private
// wlr_headless_output: stopped only when that layout is recognised (the backend pointer, the list link and the
// frame delay its refresh gives all where 0.15.1 keeps them); false, and the timer left running, otherwise.
bool stop_headless_frame_timer(wlr_output* output);

}  // namespace kiln::compositor
