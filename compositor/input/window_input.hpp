// WindowInput: what the seat tells the shell of input that concerns windows (a pointer button pressed where no grab
// has the pointer, before any client hears it; a touch or a tablet tool's tip down on a window; the keyboard taken
// from a surface by an input inhibitor; a key binding's window action) and the little it asks of the desktop; the
// shell decides what it does to windows (focus, raise, a move or resize, activation). input/ sees windows only
// through it, so no arrow runs from input/ up into shell/.
#pragma once

#include "compositor/session/settings.hpp"

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
    // Key bindings: the focused window (if any) closes, or goes fullscreen or maximized (or back); focus goes to the
    // next shown window (Alt+Tab).
    virtual void close_focused() = 0;
    virtual void toggle_fullscreen_focused() = 0;
    virtual void toggle_maximized_focused() = 0;
    virtual void focus_next() = 0;
    // A workspace or window key (BindingAction::workspace .. move_to_output_down; `number` for those with one).
    virtual void window_key(BindingAction action, int number) = 0;
    // A session locker (ext-session-lock-v1) holds the session: kiln's shortcuts stand aside.
    virtual bool locked() const = 0;
    // An input inhibitor let go: the keyboard goes to the panel that still grabs it, else the topmost window.
    virtual void restore_focus() = 0;
    // Where an xdg window's surface `surface` has its origin, in layout coordinates (text-input popups are placed
    // from it); false for any other surface.
    virtual bool window_origin(wlr_surface* surface, int* lx, int* ly) const = 0;

protected:
    ~WindowInput() = default;
};

}  // namespace kiln::compositor
