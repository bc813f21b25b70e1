// X11 window behaviour: shown where X places it, configure requests honoured, focus and stacking for managed
// windows, fullscreen on an output, moves asked for with _NET_WM_MOVERESIZE; override-redirect windows are only
// shown, above everything, and never focused.
#include "compositor/shell/xwayland_view.hpp"

#include "compositor/input/seat.hpp"
#include "compositor/server.hpp"
#include "compositor/shell/xwayland.hpp"

namespace kiln::compositor {

XwaylandView::XwaylandView(Server& server, Xwayland& owner, wlr_xwayland_surface* surface)
    : server_(server), owner_(owner), xsurface_(surface)
{
    xsurface_->data = this;
    destroy_.connect(&xsurface_->events.destroy, [this](void*) {
        xsurface_->data = nullptr;
        owner_.remove_view(this);
    });
    map_.connect(&xsurface_->events.map, [this](void*) { map(); });
    unmap_.connect(&xsurface_->events.unmap, [this](void*) { unmap(); });
    request_configure_.connect(&xsurface_->events.request_configure, [this](void* data) {
        configure_request(*static_cast<wlr_xwayland_surface_configure_event*>(data));
    });
    // wlroots has already read the new _NET_WM_STATE into `fullscreen`; kiln confirms it (or not).
    request_fullscreen_.connect(&xsurface_->events.request_fullscreen,
                                [this](void*) { set_fullscreen(xsurface_->fullscreen); });
    // _NET_ACTIVE_WINDOW: an X client asks for one of its windows to be focused.
    request_activate_.connect(&xsurface_->events.request_activate, [this](void*) {
        if (mapped() && managed())
            focus();
    });
    set_geometry_.connect(&xsurface_->events.set_geometry, [this](void*) { follow_geometry(); });
    request_move_.connect(&xsurface_->events.request_move, [this](void*) { begin_move(); });
    // A mapped window that turns override-redirect (or back) moves between the layers; one that turns
    // override-redirect gives up focus.
    set_override_redirect_.connect(&xsurface_->events.set_override_redirect, [this](void*) {
        if (!node_)
            return;
        wlr_scene_node_reparent(node_, managed() ? &server_.layers().windows->node : owner_.unmanaged_layer());
        server_.seat().scene_changed();
        if (managed())
            return;
        end_move();
        wlr_seat* seat = server_.seat().wlr();
        if (xsurface_->surface && seat->keyboard_state.focused_surface == xsurface_->surface) {
            set_activated(false);
            wlr_seat_keyboard_notify_clear_focus(seat);
        }
    });
}

XwaylandView::~XwaylandView()
{
    if (node_)
        wlr_scene_node_destroy(node_);
}

void XwaylandView::map()
{
    // Managed windows stack with the Wayland toplevels; override-redirect ones in their own layer above them.
    wlr_scene_node* parent = managed() ? &server_.layers().windows->node : owner_.unmanaged_layer();
    node_ = wlr_scene_subsurface_tree_create(parent, xsurface_->surface);
    if (!node_)
        return;
    wlr_scene_node_set_position(node_, xsurface_->x, xsurface_->y);
    server_.seat().scene_changed();  // the pointer's surface may be another now
    if (!managed())
        return;
    if (xsurface_->fullscreen)
        set_fullscreen(true);
    focus();
}

void XwaylandView::unmap()
{
    end_move();
    wlr_seat* seat = server_.seat().wlr();
    const bool focused = xsurface_->surface && seat->keyboard_state.focused_surface == xsurface_->surface;
    if (node_) {
        wlr_scene_node_destroy(node_);
        node_ = nullptr;
        server_.seat().scene_changed();
    }
    if (!focused)
        return;
    // A dialog's keyboard focus goes back to the window it belongs to; otherwise nothing has focus.
    set_activated(false);
    wlr_xwayland_surface* parent = xsurface_->parent;
    auto* parent_view = parent ? static_cast<XwaylandView*>(parent->data) : nullptr;
    if (parent_view && parent_view->mapped() && parent_view->managed())
        parent_view->focus();
    else
        wlr_seat_keyboard_notify_clear_focus(seat);
}

void XwaylandView::focus()
{
    if (!node_ || !managed() || !server_.seat().input_allowed(xsurface_->surface))
        return;  // not shown, or another client holds the input inhibitor
    wlr_seat* seat = server_.seat().wlr();
    wlr_surface* previous = seat->keyboard_state.focused_surface;
    if (previous && previous != xsurface_->surface)
        server_.deactivate(previous);
    wlr_scene_node_raise_to_top(node_);
    owner_.raise_unmanaged();
    server_.seat().scene_changed();
    // X's own stacking order follows, so X clients see (and hit-test) the same order kiln draws.
    wlr_xwayland_surface_restack(xsurface_, nullptr, XCB_STACK_MODE_ABOVE);
    set_activated(true);
    if (previous != xsurface_->surface)
        server_.seat().focus_keyboard(xsurface_->surface);
}

void XwaylandView::set_activated(bool activated)
{
    wlr_xwayland_surface_activate(xsurface_, activated);
}

void XwaylandView::configure_request(const wlr_xwayland_surface_configure_event& event)
{
    if (xsurface_->fullscreen) {
        // A fullscreen window keeps its output's geometry; X is told so again.
        set_fullscreen(true);
        return;
    }
    // kiln does no tiling: a managed X window goes where it asks, at the size it asks.
    wlr_xwayland_surface_configure(xsurface_, event.x, event.y, event.width, event.height);
    if (node_) {
        wlr_scene_node_set_position(node_, event.x, event.y);
        server_.seat().scene_changed();
    }
}

void XwaylandView::follow_geometry()
{
    // Override-redirect windows move themselves; managed ones report the geometry kiln configured.
    if (node_) {
        wlr_scene_node_set_position(node_, xsurface_->x, xsurface_->y);
        server_.seat().scene_changed();
    }
}

void XwaylandView::begin_move()
{
    if (!node_ || !managed() || xsurface_->fullscreen)
        return;
    wlr_cursor* cursor = server_.seat().cursor();
    grab_x_ = cursor->x - xsurface_->x;
    grab_y_ = cursor->y - xsurface_->y;
    // The seat's own listeners came first, so the cursor has moved when these run.
    auto follow = [this](void*) {
        wlr_cursor* c = server_.seat().cursor();
        move_to(static_cast<int>(c->x - grab_x_), static_cast<int>(c->y - grab_y_));
    };
    grab_motion_.connect(&cursor->events.motion, follow);
    grab_motion_absolute_.connect(&cursor->events.motion_absolute, follow);
    grab_button_.connect(&cursor->events.button, [this](void* data) {
        if (static_cast<wlr_event_pointer_button*>(data)->state == WLR_BUTTON_RELEASED)
            end_move();
    });
}

void XwaylandView::end_move()
{
    grab_motion_.disconnect();
    grab_motion_absolute_.disconnect();
    grab_button_.disconnect();
}

void XwaylandView::move_to(int x, int y)
{
    wlr_xwayland_surface_configure(xsurface_, static_cast<int16_t>(x), static_cast<int16_t>(y), xsurface_->width,
                                   xsurface_->height);
    if (node_) {
        wlr_scene_node_set_position(node_, x, y);
        server_.seat().scene_changed();
    }
}

void XwaylandView::set_fullscreen(bool fullscreen)
{
    wlr_output_layout* layout = server_.layout();
    wlr_output* output =
        wlr_output_layout_output_at(layout, xsurface_->x + xsurface_->width / 2, xsurface_->y + xsurface_->height / 2);
    if (!output)
        output = wlr_output_layout_get_center_output(layout);
    if (fullscreen && output) {
        end_move();
        const wlr_box* box = wlr_output_layout_get_box(layout, output);
        if (!was_fullscreen_) {
            saved_ = {xsurface_->x, xsurface_->y, xsurface_->width, xsurface_->height};
            was_fullscreen_ = true;
        }
        wlr_xwayland_surface_configure(xsurface_, static_cast<int16_t>(box->x), static_cast<int16_t>(box->y),
                                       static_cast<uint16_t>(box->width), static_cast<uint16_t>(box->height));
        if (node_) {
            wlr_scene_node_set_position(node_, box->x, box->y);
            wlr_scene_node_raise_to_top(node_);
            owner_.raise_unmanaged();
            server_.seat().scene_changed();
        }
        wlr_xwayland_surface_set_fullscreen(xsurface_, true);
        return;
    }
    wlr_xwayland_surface_set_fullscreen(xsurface_, false);
    if (was_fullscreen_) {
        was_fullscreen_ = false;
        wlr_xwayland_surface_configure(xsurface_, static_cast<int16_t>(saved_.x), static_cast<int16_t>(saved_.y),
                                       static_cast<uint16_t>(saved_.width), static_cast<uint16_t>(saved_.height));
        if (node_) {
            wlr_scene_node_set_position(node_, saved_.x, saved_.y);
            server_.seat().scene_changed();
        }
    }
}

}  // namespace kiln::compositor
