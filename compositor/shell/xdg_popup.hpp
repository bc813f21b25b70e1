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
// Flips, slides and resizes the popup (as its positioner allows) to lie within `bounds` now and each time its
// client repositions it, until the popup's role goes.
void keep_popup_inside(xdg::Popup& popup, PopupBounds bounds);

}  // namespace kiln::compositor
