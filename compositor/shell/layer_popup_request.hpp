// kiln's zwlr_layer_surface_v1.get_popup: wlroots 0.15's handler takes the xdg_popup for one of its own xdg-shell
// objects (and asserts so), but the popups are kiln's (compositor/shell/xdg/). Every other request still goes to
// wlroots' handlers.
#pragma once

#include "compositor/wlr.hpp"

namespace kiln::compositor {

// Routes the layer surface's get_popup to kiln: a popup with no parent yet is given the layer surface as its
// parent and announced on the layer surface's new_popup signal (data: the xdg::Popup); any other popup is the
// client's invalid_surface_state.
void take_over_get_popup(wlr_layer_surface_v1* layer_surface);

}  // namespace kiln::compositor
