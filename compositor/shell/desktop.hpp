// Desktop: what the rooms ask of the desktop as a whole (keyboard focus among windows, panels and the lock, the
// usable area panels leave, X11 menus), kept by the composition root that knows which rooms answer it.
#pragma once

#include "compositor/session/settings.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class Toplevel;

class Desktop {
public:
    // The topmost surface under a layout point and its surface-local coordinates, and the window it is in, if any.
    virtual Toplevel* toplevel_at(double lx, double ly, wlr_surface** surface, double* sx, double* sy) = 0;
    // Keyboard focus to a window (raised, and shown if minimized).
    virtual void focus(Toplevel* toplevel) = 0;
    // Keyboard focus to the most recently focused window still shown (none: no focus).
    virtual void focus_top_view() = 0;
    // Windows may not take the keyboard: the session is locked, or a panel holds it (layer-shell exclusive).
    virtual bool focus_held_elsewhere() const = 0;
    // After a lock or a keyboard-grabbing panel let go: the panel that still grabs it, else the topmost window.
    virtual void restore_focus() = 0;
    // The window with keyboard focus, or null.
    virtual Toplevel* focused_toplevel() const = 0;
    // Focus goes to the next shown window after the focused one, in the order they appeared (Alt+Tab).
    virtual void focus_next() = 0;
    // A session locker (ext-session-lock-v1) holds the session: no other surface is shown or gets input.
    virtual bool locked() const = 0;
    // The part of `output` (layout coordinates) windows are placed and maximized in: the output less the
    // exclusive zones of panels (layer-shell). Empty for an output outside the layout.
    virtual wlr_box usable_area(wlr_output* output) const = 0;
    virtual void usable_area_changed(wlr_output* output) = 0;
    // X11 menus and tooltips stay above the windows.
    virtual void raise_x_menus() = 0;
    // What covers the windows changed (a panel's place or opaque area, the session lock): which windows are hidden,
    // and so suspended, is worked out again.
    virtual void coverage_changed() = 0;
    // A workspace or window key (BindingAction::workspace .. move_to_output_down; `number` for those with one).
    virtual void window_key(BindingAction action, int number) = 0;

protected:
    ~Desktop() = default;
};

}  // namespace kiln::compositor
