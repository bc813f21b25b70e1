// Bindings: kiln.ini's [bindings] acting on key presses from any keyboard, real or virtual (wtype, tests).
#pragma once

#include "compositor/session/settings.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class Server;

class Bindings {
public:
    explicit Bindings(Server& server) : server_(server) {}
    Bindings(const Bindings&) = delete;
    Bindings& operator=(const Bindings&) = delete;

    // A key went down on `keyboard` (an evdev keycode): true when it is bound, and its action ran; the focused
    // client then never sees the key. With shortcuts inhibited only VT switching is kiln's (a way out).
    bool key_pressed(wlr_keyboard* keyboard, uint32_t keycode, bool inhibited);

private:
    void run(const Binding& binding);

    Server& server_;
};

}  // namespace kiln::compositor
