// XdgActivation: a toplevel asks for focus with a token from an input event (a launcher's click, a notification's
// button); kiln focuses it when the token came with a seat serial.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class Desktop;

class XdgActivation {
public:
    XdgActivation(wl_display* display, Desktop& desktop);
    XdgActivation(const XdgActivation&) = delete;
    XdgActivation& operator=(const XdgActivation&) = delete;

private:
    Desktop& desktop_;
    wl::Listener request_activate_;
};

}  // namespace kiln::compositor
