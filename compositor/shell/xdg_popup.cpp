// Popup placement: the parent's scene tree, then the positioner's constraint adjustments against the usable area.
#include "compositor/shell/xdg_popup.hpp"

#include "compositor/listener.hpp"
#include "compositor/shell/view.hpp"
#include "compositor/shell/xdg/xdg_scene.hpp"
#include "compositor/shell/xdg_shell.hpp"

#include "xdg-shell-protocol.h"

namespace kiln::compositor {

namespace {

// The root toplevel of a popup's chain of parents, if it is a mapped window of kiln's, and the layout position of
// the popup's parent's window geometry (what the positioner's coordinates are relative to).
View* root_view(const xdg::Popup& popup, int& parent_x, int& parent_y)
{
    parent_x = 0;
    parent_y = 0;
    xdg::Surface* parent = popup.xdg_parent();
    for (int depth = 0; parent && depth < 256; ++depth) {
        if (parent->role() != xdg::Role::popup) {
            View* view = View::from(parent);
            if (!view || !view->mapped())
                return nullptr;
            parent_x += view->x();
            parent_y += view->y();
            return view;
        }
        parent_x += parent->popup()->geometry.x;
        parent_y += parent->popup()->geometry.y;
        parent = parent->popup()->xdg_parent();
    }
    return nullptr;
}

placement::Box box_of(const wlr_box& box)
{
    return {box.x, box.y, box.width, box.height};
}

// Flip, slide and resize as the positioner allows so the popup lies inside `bounds` (relative to its parent).
void unconstrain(xdg::Popup& popup, const placement::Box& bounds)
{
    if (bounds.width <= 0 || bounds.height <= 0)
        return;  // no output: the positioner's box as it is
    const xdg::PositionerRules& rules = popup.rules();
    placement::PopupRule rule;
    rule.natural = box_of(rules.geometry());
    rule.flipped_x = box_of(rules.flipped_x().geometry());
    rule.flipped_y = box_of(rules.flipped_y().geometry());
    const uint32_t allowed = rules.adjustment;
    rule.flip_x = allowed & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_X;
    rule.flip_y = allowed & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_Y;
    rule.slide_x = allowed & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_X;
    rule.slide_y = allowed & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_Y;
    rule.resize_x = allowed & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_RESIZE_X;
    rule.resize_y = allowed & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_RESIZE_Y;
    const placement::Box box = placement::constrain_popup(bounds, rule);
    // The popup's next configure (and its place in the scene) is this geometry.
    popup.geometry = {box.x, box.y, box.width, box.height};
}

// Places the popup again when its client repositions it, and a reactive one (xdg_positioner.set_reactive) when
// its windows move or resize: a new configure when its place changes. Lives as long as the popup's role.
class Placement {
public:
    Placement(xdg::Popup& popup, PopupBounds bounds, wl_signal* windows_changed) : bounds_(std::move(bounds))
    {
        if (windows_changed)
            windows_changed_.connect(windows_changed, [this, &popup](void*) {
                if (popup.dismissed() || !popup.rules().reactive)
                    return;
                const wlr_box before = popup.geometry;
                unconstrain(popup, bounds_());
                const wlr_box& after = popup.geometry;
                if (after.x != before.x || after.y != before.y || after.width != before.width ||
                    after.height != before.height)
                    popup.base().schedule_configure();
            });
        reposition_.connect(&popup.events.reposition, [this, &popup](void*) {
            if (!popup.dismissed())
                unconstrain(popup, bounds_());
        });
        destroy_.connect(&popup.events.destroy, [this](void*) { delete this; });
        unconstrain(popup, bounds_());
    }

private:
    PopupBounds bounds_;
    wl::Listener windows_changed_;
    wl::Listener reposition_;
    wl::Listener destroy_;
};

}  // namespace

void add_popup(XdgShell& shell, xdg::Surface* surface)
{
    xdg::Popup& popup = *surface->popup();
    // A layer surface's popup is in the scene already: zwlr_layer_surface_v1.get_popup named its parent before this
    // first commit (LayerSurface::add_popup).
    wlr_surface* parent_surface = popup.parent();
    if (parent_surface && wlr_surface_is_layer_surface(parent_surface))
        return;
    surface->data = nullptr;
    // The protocol checked the parent when the popup was made; one whose role went since dismissed the popup.
    xdg::Surface* parent = popup.xdg_parent();
    if (!parent || !parent->data)
        return;  // a parent that is not shown has no scene tree
    surface->data = xdg::create_scene_tree(static_cast<wlr_scene_node*>(parent->data), *surface);
    // Kept inside the usable area of its window's output. Its first configure is sent when the event loop is next
    // idle, with the geometry set here.
    keep_popup_inside(popup, &shell.events.windows_changed, [&shell, &popup]() -> placement::Box {
        int parent_x = 0;
        int parent_y = 0;
        View* view = root_view(popup, parent_x, parent_y);
        if (!view)
            return {};
        const placement::Box area = shell.usable_area(view->output());
        return {area.x - parent_x, area.y - parent_y, area.width, area.height};
    });
}

void keep_popup_inside(xdg::Popup& popup, wl_signal* windows_changed, PopupBounds bounds)
{
    new Placement(popup, std::move(bounds), windows_changed);  // freed with the popup's role
}

}  // namespace kiln::compositor
