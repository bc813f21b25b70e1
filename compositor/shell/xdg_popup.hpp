// Popups: a new xdg_popup's scene tree inside its parent's, and its position kept inside the output's usable area.
#pragma once

#include "compositor/shell/placement.hpp"
#include "compositor/shell/xdg/xdg_surface.hpp"

#include <functional>

namespace kiln::compositor {

class XdgShell;

// Called when the shell announces the popup (on its first commit, before its first configure goes out). It is
// placed again whenever the client repositions it.
void add_popup(XdgShell& shell, xdg::Surface* surface);

// Where the popup may go, relative to its parent's window geometry; empty: anywhere.
using PopupBounds = std::function<placement::Box()>;
// Flips, slides and resizes the popup (as its positioner allows) to lie within `bounds` now, each time its client
// repositions it, and (a reactive one) each time `windows_changed` (may be null) fires, until its role goes.
void keep_popup_inside(xdg::Popup& popup, wl_signal* windows_changed, PopupBounds bounds);

}  // namespace kiln::compositor
