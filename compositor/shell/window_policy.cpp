// WindowPolicy behaviour: a press on a decoration, then click to focus and Super + drag (window_press.hpp decides);
// an input inhibitor's taking of the keyboard; the key bindings' window actions; what the seat asks of the desktop.
#include "compositor/shell/window_policy.hpp"

#include "compositor/core.hpp"
#include "compositor/shell/desktop.hpp"
#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/toplevels.hpp"
#include "compositor/shell/window_press.hpp"
#include "compositor/shell/xdg/xdg_surface.hpp"

namespace kiln::compositor {

bool WindowPolicy::pressed(const ButtonPress& press)
{
    // kiln's own title bars and borders: the press is kiln's, no client hears it.
    if (press_decoration(press))
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
    case PressOnWindow::Action::close:  // only a decoration's close box closes
        break;
    }
    return false;
}

void WindowPolicy::touched(Toplevel& toplevel)
{
    desktop_.focus(&toplevel);
}

void WindowPolicy::keyboard_taken(wlr_surface* surface)
{
    if (Toplevel* toplevel = toplevels_.find(surface))
        toplevel->set_activated(false);
}

bool WindowPolicy::press_decoration(const ButtonPress& press)
{
    double sx = 0;
    double sy = 0;
    wlr_scene_node* node = wlr_scene_node_at(&core_.scene->node, press.lx, press.ly, &sx, &sy);
    if (!node || node->type == WLR_SCENE_NODE_SURFACE)
        return false;
    // Only kiln's decorations are rectangles or buffers in a window's tree, which carries its Toplevel in `data`.
    Toplevel* toplevel = nullptr;
    for (wlr_scene_node* n = node; n && !toplevel; n = n->parent)
        toplevel = static_cast<Toplevel*>(n->data);
    if (!toplevel || !toplevel->mapped())
        return false;
    const ServerDecoration::Part part = toplevel->decoration_at(press.lx, press.ly);
    if (part.action == ServerDecoration::Action::none)
        return false;
    // While another client holds the input inhibitor, a press on this window's decoration does nothing.
    if (!press.input_allowed(toplevel->surface()))
        return true;
    toplevels_.focus(toplevel);
    const PressOnWindow what =
        press_on_decoration(press.button, part, toplevel->maximized() || toplevel->fullscreen());
    switch (what.action) {
    case PressOnWindow::Action::move:
        toplevels_.begin_move(*toplevel);
        break;
    case PressOnWindow::Action::resize:
        toplevels_.start_grab(*toplevel, what.edges);
        break;
    case PressOnWindow::Action::close:
        toplevel->close();
        break;
    case PressOnWindow::Action::focus:
        break;
    }
    return true;
}

void WindowPolicy::close_focused()
{
    if (Toplevel* toplevel = desktop_.focused_toplevel())
        toplevel->close();
}

void WindowPolicy::toggle_fullscreen_focused()
{
    if (Toplevel* toplevel = desktop_.focused_toplevel())
        toplevel->toggle_fullscreen();
}

void WindowPolicy::toggle_maximized_focused()
{
    if (Toplevel* toplevel = desktop_.focused_toplevel())
        toplevel->toggle_maximized();
}

void WindowPolicy::focus_next()
{
    desktop_.focus_next();
}

void WindowPolicy::window_key(BindingAction action, int number)
{
    desktop_.window_key(action, number);
}

bool WindowPolicy::locked() const
{
    return desktop_.locked();
}

void WindowPolicy::restore_focus()
{
    desktop_.restore_focus();
}

bool WindowPolicy::window_origin(wlr_surface* surface, int* lx, int* ly) const
{
    // A toplevel's xdg surface carries its scene tree, whose origin is the surface's (View sets it).
    const xdg::Surface* xdg = xdg::Surface::from(surface);
    return xdg && xdg->data && wlr_scene_node_coords(static_cast<wlr_scene_node*>(xdg->data), lx, ly);
}

}  // namespace kiln::compositor
