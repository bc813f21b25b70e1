// xdg-foreign v1 and v2: a client exports its toplevel as a handle another client imports to parent its own
// dialogs to it (portals' file choosers over the application asking). wlroots does it all.
#pragma once

#include "compositor/wlr.hpp"

namespace kiln::compositor {

// Creates both globals (freed with the display); false when one cannot be created.
bool offer_xdg_foreign(wl_display* display);

}  // namespace kiln::compositor
