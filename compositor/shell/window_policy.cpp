// WindowPolicy behaviour: a press on a decoration, then click to focus and Super + drag (window_press.hpp decides).
#include "compositor/shell/window_policy.hpp"

#include "compositor/shell/desktop.hpp"
#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/toplevels.hpp"
#include "compositor/shell/window_press.hpp"

namespace kiln::compositor {

bool WindowPolicy::pressed(const ButtonPress& press)
{
    // kiln's own title bars and borders: the press is kiln's, no client hears it.
    if (toplevels_.press_decoration(press.lx, press.ly, press.button))
        return true;
    wlr_surface* surface = nullptr;
    double sx = 0;
    double sy = 0;
    Toplevel* toplevel = desktop_.toplevel_at(press.lx, press.ly, &surface, &sx, &sy);
    if (!toplevel)
        return false;
    desktop_.focus(toplevel);
    // Whether shortcuts are inhibited is the newly focused window's to say.
    const PressOnWindow what = press_on_window(press.button, press.modifiers, press.shortcuts_inhibited(),
                                               toplevel->geometry(), press.lx, press.ly);
    switch (what.action) {
    case PressOnWindow::Action::move:
        toplevels_.begin_move(*toplevel);
        return true;
    case PressOnWindow::Action::resize:
        toplevels_.begin_resize(*toplevel, what.edges);
        return true;
    case PressOnWindow::Action::focus:
        break;
    }
    return false;
}

}  // namespace kiln::compositor
