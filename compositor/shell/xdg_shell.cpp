// XdgShell behaviour: new toplevels and popups, focus order, interactive grabs and the outputs windows go on.
#include "compositor/shell/xdg_shell.hpp"

#include "compositor/input/seat.hpp"
#include "compositor/server.hpp"
#include "compositor/shell/interactive.hpp"
#include "compositor/shell/popup_grab_guard.hpp"
#include "compositor/shell/view.hpp"
#include "compositor/shell/xdg_popup.hpp"

#include <linux/input-event-codes.h>

#include <algorithm>

namespace kiln::compositor {

XdgShell::XdgShell(Server& server, wl_display* display)
    : server_(server),
      shell_(wlr_xdg_shell_create(display)),  // freed with the display
      normal_(server.layers().windows),
      fullscreen_(server.layers().fullscreen),
      popup_grab_guard_(std::make_unique<PopupGrabGuard>(display))
{
    new_surface_.connect(&shell_->events.new_surface, [this](void* data) {
        auto* surface = static_cast<wlr_xdg_surface*>(data);
        if (surface->role == WLR_XDG_SURFACE_ROLE_TOPLEVEL)
            views_.push_back(std::make_unique<View>(server_, *this, surface));
        else if (surface->role == WLR_XDG_SURFACE_ROLE_POPUP)
            add_popup(*this, surface);
    });
}

XdgShell::~XdgShell()
{
    end_grab();
    views_.clear();
}

wlr_scene_node* XdgShell::layer(Layer layer) const
{
    return layer == Layer::fullscreen ? &fullscreen_->node : &normal_->node;
}

void XdgShell::focus(View* view)
{
    if (view->minimized())
        view->set_minimized(false);
    wlr_scene_node_raise_to_top(view->node());
    server_.raise_x_menus();
    server_.seat().scene_changed();
    focus_order_.erase(std::remove(focus_order_.begin(), focus_order_.end(), view), focus_order_.end());
    focus_order_.push_back(view);
    // Locked, or a panel holds the keyboard, or another client holds the input inhibitor: the window comes to the
    // front, next in line, unfocused.
    if (server_.focus_held_elsewhere() || !server_.seat().input_allowed(view->surface()))
        return;
    wlr_seat* seat = server_.seat().wlr();
    wlr_surface* previous = seat->keyboard_state.focused_surface;
    if (previous == view->surface())
        return;
    server_.deactivate(previous);  // an xdg toplevel or an X11 window
    view->set_activated(true);
    server_.seat().focus_keyboard(view->surface());
    // A window given focus should answer; one that does not within the shell's timeout is marked unresponsive.
    wlr_xdg_surface_ping(view->xdg());
}

View* XdgShell::focused_view() const
{
    wlr_surface* focused = server_.seat().wlr()->keyboard_state.focused_surface;
    if (!focused)
        return nullptr;
    for (const auto& view : views_)
        if (view->mapped() && view->surface() == focused)
            return view.get();
    return nullptr;
}

void XdgShell::focus_next()
{
    View* current = focused_view();
    auto start = std::find_if(views_.begin(), views_.end(), [&](const auto& v) { return v.get() == current; });
    // From the one after the focused view round to the one before it; from the first when none has focus.
    auto it = start == views_.end() ? views_.begin() : std::next(start);
    for (size_t n = 0; n < views_.size(); ++n, ++it) {
        if (it == views_.end())
            it = views_.begin();
        if ((*it)->mapped() && it->get() != current) {
            focus(it->get());
            return;
        }
    }
}

void XdgShell::focus_latest()
{
    for (auto it = focus_order_.rbegin(); it != focus_order_.rend(); ++it) {
        if ((*it)->mapped() && !(*it)->minimized() && server_.seat().input_allowed((*it)->surface())) {
            focus(*it);
            return;
        }
    }
}

void XdgShell::view_mapped(View& view)
{
    // A fullscreen window on the output keeps focus and stays on top, unless the new one is its dialog, which
    // opens above it (as sway does).
    View* parent = view.xdg()->toplevel->parent ? View::from(view.xdg()->toplevel->parent) : nullptr;
    for (const auto& other : views_) {
        if (other.get() == &view || !other->mapped() || !other->fullscreen() || other->output() != view.output())
            continue;
        if (other.get() == parent) {
            wlr_scene_node_reparent(view.node(), layer(Layer::fullscreen));
            break;
        }
        // Next in line for focus once the fullscreen window goes.
        focus_order_.insert(focus_order_.empty() ? focus_order_.end() : focus_order_.end() - 1, &view);
        return;
    }
    focus(&view);
}

void XdgShell::view_hidden(View& view)
{
    if (grab_ && &grab_->view() == &view)
        end_grab();
    focus_order_.erase(std::remove(focus_order_.begin(), focus_order_.end(), &view), focus_order_.end());
    wlr_seat* seat = server_.seat().wlr();
    if (seat->keyboard_state.focused_surface != view.surface())
        return;
    for (auto it = focus_order_.rbegin(); it != focus_order_.rend(); ++it) {
        if ((*it)->mapped() && !(*it)->minimized() && server_.seat().input_allowed((*it)->surface())) {
            focus(*it);
            return;
        }
    }
    wlr_seat_keyboard_notify_clear_focus(seat);
}

void XdgShell::remove_view(View* view)
{
    if (grab_ && &grab_->view() == view)
        end_grab();
    focus_order_.erase(std::remove(focus_order_.begin(), focus_order_.end(), view), focus_order_.end());
    views_.remove_if([view](const auto& v) { return v.get() == view; });
}

void XdgShell::begin_move(View& view)
{
    if (view.fullscreen() || view.maximized())
        return;
    start_grab(view, 0);
}

void XdgShell::request_grab(View& view, wlr_seat_client* client, uint32_t serial, uint32_t edges)
{
    // A resize drags one edge or two that meet at a corner; any other value is not a resize_edge.
    const bool valid_edges = !(edges & ~uint32_t{WLR_EDGE_TOP | WLR_EDGE_BOTTOM | WLR_EDGE_LEFT | WLR_EDGE_RIGHT}) &&
                             !((edges & WLR_EDGE_TOP) && (edges & WLR_EDGE_BOTTOM)) &&
                             !((edges & WLR_EDGE_LEFT) && (edges & WLR_EDGE_RIGHT));
    if (!valid_edges) {
        wl_resource_post_error(view.xdg()->toplevel->resource, XDG_TOPLEVEL_ERROR_INVALID_RESIZE_EDGE,
                               "%u is not a resize edge", edges);
        return;
    }
    wlr_seat* seat = server_.seat().wlr();
    // Only the press that is still held (the one button down) and went to this client may start a grab; a stale or
    // forged serial, or a second grab, is a no-op.
    if (!view.mapped() || view.fullscreen() || view.maximized() || grab_ || !client || client->seat != seat)
        return;
    if (!wlr_seat_validate_pointer_grab_serial(seat, nullptr, serial) || seat->pointer_state.focused_client != client)
        return;
    start_grab(view, edges);
}

void XdgShell::start_grab(View& view, uint32_t edges)
{
    end_grab();
    wlr_cursor* cursor = server_.seat().cursor();
    grab_ = std::make_unique<InteractiveGrab>(*this, view, edges, cursor->x, cursor->y);
    server_.seat().start_grab(*grab_);
}

void XdgShell::end_grab()
{
    if (!grab_)
        return;
    server_.seat().cancel_grab(*grab_);  // a no-op when the seat has already let go (the button's release)
    grab_.reset();
}

bool XdgShell::press_decoration(double lx, double ly, uint32_t button)
{
    double sx = 0;
    double sy = 0;
    wlr_scene_node* node = wlr_scene_node_at(&server_.scene()->node, lx, ly, &sx, &sy);
    if (!node || node->type == WLR_SCENE_NODE_SURFACE)
        return false;
    // Only kiln's decorations are rectangles or buffers in a view's tree; the view says which part was pressed.
    View* view = nullptr;
    for (const auto& candidate : views_)
        for (wlr_scene_node* n = node; n && !view; n = n->parent)
            if (n == candidate->node())
                view = candidate.get();
    if (!view || !view->mapped())
        return false;
    const ServerDecoration::Part part = view->decoration_at(lx, ly);
    if (part.action == ServerDecoration::Action::none)
        return false;
    focus(view);
    if (button != BTN_LEFT)
        return true;
    switch (part.action) {
    case ServerDecoration::Action::move:
        begin_move(*view);
        break;
    case ServerDecoration::Action::resize:
        if (!view->maximized() && !view->fullscreen())
            start_grab(*view, part.edges);
        break;
    case ServerDecoration::Action::close:
        view->close();
        break;
    case ServerDecoration::Action::none:
        break;
    }
    return true;
}

wlr_output* XdgShell::output_under_pointer() const
{
    wlr_cursor* cursor = server_.seat().cursor();
    wlr_output* output = wlr_output_layout_output_at(server_.layout(), cursor->x, cursor->y);
    return output ? output : wlr_output_layout_get_center_output(server_.layout());
}

void XdgShell::usable_area_changed(wlr_output* output)
{
    for (const auto& view : views_)
        if (view->mapped() && view->maximized() && !view->fullscreen() && view->output() == output)
            view->refit();
}

placement::Box XdgShell::usable_area(wlr_output* output) const
{
    if (!output || !wlr_output_layout_get_box(server_.layout(), output))
        return {};
    // Less the exclusive zones of panels (layer-shell).
    const wlr_box box = server_.usable_area(output);
    return {box.x, box.y, box.width, box.height};
}

std::vector<placement::Point> XdgShell::taken_spots(const View* except) const
{
    std::vector<placement::Point> spots;
    for (const auto& view : views_)
        if (view.get() != except && view->mapped() && !view->minimized())
            spots.push_back({view->x(), view->y()});
    return spots;
}

}  // namespace kiln::compositor
