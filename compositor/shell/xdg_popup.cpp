// Popup placement: the parent's scene tree, then the positioner's constraint adjustments against the usable area.
#include "compositor/shell/xdg_popup.hpp"

#include "compositor/shell/view.hpp"
#include "compositor/shell/xdg_shell.hpp"

namespace kiln::compositor {

namespace {

// The root toplevel of a popup's chain of parents, if it is a mapped window of kiln's, and the layout position of
// the popup's parent's window geometry (what the positioner's coordinates are relative to).
View* root_view(wlr_xdg_popup* popup, int& parent_x, int& parent_y)
{
    parent_x = 0;
    parent_y = 0;
    wlr_surface* parent = popup->parent;
    for (int depth = 0; parent && wlr_surface_is_xdg_surface(parent) && depth < 256; ++depth) {
        wlr_xdg_surface* xdg = wlr_xdg_surface_from_wlr_surface(parent);
        if (!xdg || xdg->role != WLR_XDG_SURFACE_ROLE_POPUP) {
            View* view = View::from(xdg);
            if (!view || !view->mapped())
                return nullptr;
            parent_x += view->x();
            parent_y += view->y();
            return view;
        }
        parent_x += xdg->popup->geometry.x;
        parent_y += xdg->popup->geometry.y;
        parent = xdg->popup->parent;
    }
    return nullptr;
}

placement::Box box_of(const wlr_box& box)
{
    return {box.x, box.y, box.width, box.height};
}

// Flip, slide and resize as the positioner allows so the popup lies inside the usable area of its window's output.
// kiln does this itself: wlroots 0.15's wlr_xdg_popup_unconstrain_from_box grows a popup it should shrink.
void unconstrain(XdgShell& shell, wlr_xdg_popup* popup)
{
    int parent_x = 0;
    int parent_y = 0;
    View* view = root_view(popup, parent_x, parent_y);
    if (!view)
        return;
    const placement::Box area = shell.usable_area(view->output());
    if (area.width <= 0 || area.height <= 0)
        return;  // no output: the positioner's box as it is
    const placement::Box bounds{area.x - parent_x, area.y - parent_y, area.width, area.height};

    wlr_xdg_positioner& positioner = popup->positioner;
    placement::PopupRule rule;
    rule.natural = box_of(wlr_xdg_positioner_get_geometry(&positioner));
    wlr_xdg_positioner flipped = positioner;
    wlr_positioner_invert_x(&flipped);
    rule.flipped_x = box_of(wlr_xdg_positioner_get_geometry(&flipped));
    flipped = positioner;
    wlr_positioner_invert_y(&flipped);
    rule.flipped_y = box_of(wlr_xdg_positioner_get_geometry(&flipped));
    const uint32_t allowed = positioner.constraint_adjustment;
    rule.flip_x = allowed & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_X;
    rule.flip_y = allowed & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_Y;
    rule.slide_x = allowed & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_X;
    rule.slide_y = allowed & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_Y;
    rule.resize_x = allowed & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_RESIZE_X;
    rule.resize_y = allowed & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_RESIZE_Y;
    const placement::Box box = placement::constrain_popup(bounds, rule);
    // The popup's first configure (and its place in the scene) is this geometry.
    popup->geometry = {box.x, box.y, box.width, box.height};
}

}  // namespace

void add_popup(XdgShell& shell, wlr_xdg_surface* surface)
{
    // The parent is the client's choice. Null is allowed until the first commit (layer-shell may name it by then):
    // wlroots then answers xdg_surface.not_constructed but still announces the popup. An xdg_surface without a role
    // (never given one, or whose role object is gone) is not a valid parent. data may still name the scene tree of
    // an earlier role of this xdg_surface, destroyed with that role.
    wlr_surface* parent_surface = surface->popup->parent;
    // A layer surface's popup is in the scene already: zwlr_layer_surface_v1.get_popup named its parent before this
    // first commit (LayerSurface::add_popup).
    if (parent_surface && wlr_surface_is_layer_surface(parent_surface))
        return;
    surface->data = nullptr;
    if (!parent_surface)
        return;
    // A parent whose role object is gone keeps its surface role but has no scene tree left.
    wlr_xdg_surface* parent =
        wlr_surface_is_xdg_surface(parent_surface) ? wlr_xdg_surface_from_wlr_surface(parent_surface) : nullptr;
    if (!parent || parent->role == WLR_XDG_SURFACE_ROLE_NONE) {
        wl_resource_post_error(surface->client->resource, XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT,
                               "the popup's parent is neither an xdg_toplevel nor an xdg_popup");
        return;
    }
    // A popup lives in its parent's scene tree so it moves with it; a parent that is not shown has none.
    if (!parent->data)
        return;
    surface->data = wlr_scene_xdg_surface_create(static_cast<wlr_scene_node*>(parent->data), surface);
    // Its first configure is sent when the event loop is next idle, with the geometry set here.
    unconstrain(shell, surface->popup);
}

}  // namespace kiln::compositor
