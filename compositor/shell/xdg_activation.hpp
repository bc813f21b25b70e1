// XdgActivation: a toplevel asks for focus with a token from an input event (a launcher's click, a notification's
// button); kiln focuses it when the token came with a seat serial, and otherwise only tells `attention` (a window on
// a hidden workspace marks it urgent), as sway does.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <functional>

namespace kiln::compositor {

class Desktop;
class Toplevel;

class XdgActivation {
public:
    XdgActivation(wl_display* display, Desktop& desktop, std::function<void(Toplevel&)> attention);
    XdgActivation(const XdgActivation&) = delete;
    XdgActivation& operator=(const XdgActivation&) = delete;

private:
    Desktop& desktop_;
    std::function<void(Toplevel&)> attention_;
    wl::Listener request_activate_;
};

}  // namespace kiln::compositor
