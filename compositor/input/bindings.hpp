// Bindings: kiln.ini's [bindings] acting on key presses from any keyboard, real or virtual (wtype, tests).
#pragma once

#include "compositor/session/options.hpp"
#include "compositor/session/settings.hpp"
#include "compositor/wlr.hpp"

#include <functional>

namespace kiln::compositor {

class WindowInput;

// What a binding asks of the session as a whole: kiln ends (with an exit status), or the VT changes.
struct SessionActions {
    std::function<void(int status)> terminate;
    std::function<void(int vt)> switch_vt;
};

class Bindings {
public:
    // `options` is read at each key: SIGHUP's new [bindings] apply at once.
    Bindings(const Options& options, WindowInput& windows, SessionActions session)
        : options_(options), windows_(windows), session_(std::move(session))
    {
    }
    Bindings(const Bindings&) = delete;
    Bindings& operator=(const Bindings&) = delete;

    // A key went down on `keyboard` (an evdev keycode): true when it is bound, and its action ran; the focused
    // client then never sees the key. With shortcuts inhibited only VT switching is kiln's (a way out).
    bool key_pressed(wlr_keyboard* keyboard, uint32_t keycode, bool inhibited);

private:
    void run(const Binding& binding);

    const Options& options_;
    WindowInput& windows_;
    SessionActions session_;
};

}  // namespace kiln::compositor
