// WindowInput: what the seat tells the shell of input that concerns windows (a pointer button pressed where no grab
// has the pointer, before any client hears it; a touch or a tablet tool's tip down on a window; the keyboard taken
// from a surface by an input inhibitor); the shell decides what it does to windows (focus, raise, a move or resize,
// activation).
#pragma once

#include <cstdint>
#include <functional>

struct wlr_surface;

namespace kiln::compositor {

class Toplevel;

struct ButtonPress {
    double lx = 0;  // the cursor, in layout coordinates
    double ly = 0;
    uint32_t button = 0;     // evdev code (BTN_LEFT, ...)
    uint32_t modifiers = 0;  // wlr_keyboard_modifier bits held on the seat's keyboard; none without one
    // Whether kiln's shortcuts stand aside for the focused window (keyboard-shortcuts-inhibit) or for a client that
    // holds the input inhibitor; asked after the press has focused the window it is on.
    std::function<bool()> shortcuts_inhibited;
    // Whether `surface` may have input: every surface, except while a client holds the input inhibitor (a lock
    // screen), when only that client's do.
    std::function<bool(wlr_surface* surface)> input_allowed;
};

class WindowInput {
public:
    // True when the press was kiln's (its decoration, Super + drag): no client hears it.
    virtual bool pressed(const ButtonPress& press) = 0;
    // A touch point or a tablet tool's tip went down on `toplevel` (on a surface that may have input).
    virtual void touched(Toplevel& toplevel) = 0;
    // A client took the input inhibitor, and with it the keyboard from `surface` (another client's).
    virtual void keyboard_taken(wlr_surface* surface) = 0;

protected:
    ~WindowInput() = default;
};

}  // namespace kiln::compositor
