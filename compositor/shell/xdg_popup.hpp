// Popups: a new xdg_popup's scene tree inside its parent's, and its position kept inside the output's usable area.
#pragma once

#include "compositor/wlr.hpp"

namespace kiln::compositor {

class XdgShell;

// Called when wlroots announces the popup (on its first commit, before its first configure goes out).
void add_popup(XdgShell& shell, wlr_xdg_surface* surface);

}  // namespace kiln::compositor
