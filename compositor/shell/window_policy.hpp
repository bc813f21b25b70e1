// WindowPolicy: what input does to windows: a button pressed on kiln's decoration does what that part of it does; on
// a window, click (or touch, or a tablet tool's tip) to focus it (raised, shown if minimized), and Super + drag to
// move or resize it; a window whose keyboard an input inhibitor takes is no longer activated.
#pragma once

#include "compositor/input/window_input.hpp"

namespace kiln::compositor {

struct Core;
class Desktop;
class Toplevels;

class WindowPolicy final : public WindowInput {
public:
    WindowPolicy(const Core& core, Desktop& desktop, Toplevels& toplevels)
        : core_(core), desktop_(desktop), toplevels_(toplevels)
    {
    }
    WindowPolicy(const WindowPolicy&) = delete;
    WindowPolicy& operator=(const WindowPolicy&) = delete;

    bool pressed(const ButtonPress& press) override;
    void touched(Toplevel& toplevel) override;
    void keyboard_taken(wlr_surface* surface) override;
    void close_focused() override;
    void toggle_fullscreen_focused() override;
    void toggle_maximized_focused() override;
    void focus_next() override;
    void window_key(BindingAction action, int number) override;
    bool locked() const override;
    void restore_focus() override;
    bool window_origin(wlr_surface* surface, int* lx, int* ly) const override;

private:
    // On kiln's decoration of a window (xdg or X11): the window is focused and the press does what that part does
    // (press_on_decoration). True when the press was on a decoration (it then goes to no client).
    bool press_decoration(const ButtonPress& press);

    const Core& core_;
    Desktop& desktop_;
    Toplevels& toplevels_;
};

}  // namespace kiln::compositor
