// ShellDesktop's answers: each asks the room that knows (Toplevels, LayerShell, the session lock, Xwayland).
#include "compositor/shell/shell_desktop.hpp"

#include "compositor/input/seat_focus.hpp"
#include "compositor/shell/layer_shell.hpp"
#include "compositor/shell/toplevels.hpp"
#include "compositor/shell/window_keys.hpp"
#include "compositor/shell/xdg_shell.hpp"
#include "compositor/shell/xwayland.hpp"

namespace kiln::compositor {

void ShellDesktop::coverage_changed()
{
    if (rooms_.shell)
        rooms_.shell->visibility_changed();
}

void ShellDesktop::window_key(BindingAction action, int number)
{
    if (rooms_.window_keys)
        rooms_.window_keys->run(action, number);
}

void ShellDesktop::usable_area_changed(wlr_output* output)
{
    if (rooms_.shell)
        rooms_.shell->usable_area_changed(output);
}

wlr_box ShellDesktop::usable_area(wlr_output* output) const
{
    if (!rooms_.layer_shell) {
        const wlr_box* box = wlr_output_layout_get_box(core_.layout, output);
        return box ? *box : wlr_box{};
    }
    return rooms_.layer_shell->usable_area(output);
}

bool ShellDesktop::locked() const
{
    return rooms_.session_locked();
}

Toplevel* ShellDesktop::toplevel_at(double lx, double ly, wlr_surface** surface, double* sx, double* sy)
{
    wlr_scene_node* node = wlr_scene_node_at(&core_.scene->node, lx, ly, sx, sy);
    if (!node || node->type != WLR_SCENE_NODE_SURFACE)
        return nullptr;
    *surface = wlr_scene_surface_from_node(node)->surface;
    // Walk up to the window's tree, which carries its Toplevel.
    for (wlr_scene_node* n = node; n; n = n->parent)
        if (n->data)
            return static_cast<Toplevel*>(n->data);
    return nullptr;
}

void ShellDesktop::focus(Toplevel* toplevel)
{
    rooms_.toplevels->focus(toplevel);
}

void ShellDesktop::focus_top_view()
{
    rooms_.toplevels->focus_latest();
}

bool ShellDesktop::focus_held_elsewhere() const
{
    return locked() || (rooms_.layer_shell && rooms_.layer_shell->keyboard_grab());
}

Toplevel* ShellDesktop::focused_toplevel() const
{
    return rooms_.toplevels->focused();
}

void ShellDesktop::focus_next()
{
    rooms_.toplevels->focus_next();
}

void ShellDesktop::restore_focus()
{
    if (locked())
        return;
    wlr_surface* grab = rooms_.layer_shell->keyboard_grab();
    if (grab && rooms_.seat.input_allowed(grab))
        rooms_.seat.focus_keyboard(grab);
    else
        focus_top_view();
}

void ShellDesktop::raise_x_menus()
{
    if (rooms_.xwayland)
        rooms_.xwayland->raise_unmanaged();
}

}  // namespace kiln::compositor
