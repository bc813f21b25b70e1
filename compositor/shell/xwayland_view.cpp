// X11 window behaviour: shown where X places it, configure requests honoured; managed windows take part in focus,
// stacking, moves and resizes (kiln's Super+drag or _NET_WM_MOVERESIZE), fullscreen, maximize and minimize like any
// toplevel; override-redirect windows are only shown, above everything, and never focused.
#include "compositor/shell/xwayland_view.hpp"

#include "compositor/input/seat_focus.hpp"
#include "compositor/core.hpp"
#include "compositor/log.hpp"
#include "compositor/shell/desktop.hpp"
#include "compositor/shell/toplevels.hpp"
#include "compositor/shell/xwayland.hpp"

#include <algorithm>
#include <cstdio>

namespace kiln::compositor {

namespace {

// A move or resize asked for with _NET_WM_MOVERESIZE starts only while the press that asked for it is still held.
bool button_held(SeatFocus& seat)
{
    return seat.wlr()->pointer_state.button_count > 0;
}

}  // namespace

XwaylandView::XwaylandView(Xwayland& owner, wlr_xwayland_surface* surface)
    : Toplevel(owner.toplevels()), owner_(owner), xsurface_(surface)
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
    // wlroots has already read the new _NET_WM_STATE into the surface; kiln confirms it (or not).
    request_fullscreen_.connect(&xsurface_->events.request_fullscreen, [this](void*) {
        if (mapped())
            set_fullscreen(xsurface_->fullscreen, nullptr);
    });
    request_maximize_.connect(&xsurface_->events.request_maximize, [this](void*) {
        if (mapped())
            set_maximized(xsurface_->maximized_vert && xsurface_->maximized_horz);
    });
    // _NET_ACTIVE_WINDOW: an X client asks for one of its windows to be focused.
    request_activate_.connect(&xsurface_->events.request_activate, [this](void*) {
        if (mapped())
            owner_.desktop().focus(this);
    });
    // _NET_WM_MOVERESIZE: a title bar's drag (a move with the pointer) or a frame's (a resize from its edges).
    request_move_.connect(&xsurface_->events.request_move, [this](void*) {
        if (mapped() && button_held(owner_.seat()))
            owner_.toplevels().begin_move(*this);
    });
    request_resize_.connect(&xsurface_->events.request_resize, [this](void* data) {
        if (mapped() && button_held(owner_.seat()))
            owner_.toplevels().begin_resize(*this, static_cast<wlr_xwayland_resize_event*>(data)->edges);
    });
    set_geometry_.connect(&xsurface_->events.set_geometry, [this](void*) { follow_geometry(); });
    set_title_.connect(&xsurface_->events.set_title, [this](void*) {
        update_decoration();  // the title bar shows it
        wl_signal_emit(&events.title, static_cast<Toplevel*>(this));
    });
    set_class_.connect(&xsurface_->events.set_class,
                       [this](void*) { wl_signal_emit(&events.title, static_cast<Toplevel*>(this)); });
    // A mapped window that turns override-redirect (or back) moves between the layers, and stops (or starts) being
    // a window kiln manages.
    set_override_redirect_.connect(&xsurface_->events.set_override_redirect, [this](void*) {
        if (!node_)
            return;
        wlr_scene_node_reparent(node_, managed() ? &owner_.core().layers.windows->node : owner_.unmanaged_layer());
        owner_.seat().scene_changed();
        if (managed())
            shown();
        else
            hidden();
        update_decoration();
    });
    // _MOTIF_WM_HINTS or _NET_WM_WINDOW_TYPE changed: a program that starts drawing its own decorations, or turns
    // its window into a splash screen or dock, loses kiln's, and back.
    auto decorations_changed = [this](void*) {
        update_decoration();
        if (mapped() && maximized_ && !fullscreen_)
            apply_state(nullptr);  // the area it fills grew or shrank by the decoration
    };
    set_decorations_.connect(&xsurface_->events.set_decorations, decorations_changed);
    set_window_type_.connect(&xsurface_->events.set_window_type, decorations_changed);
}

XwaylandView::~XwaylandView()
{
    decoration_.reset();
    if (node_)
        wlr_scene_node_destroy(node_);
}

void XwaylandView::map()
{
    // Managed windows stack with the Wayland toplevels; override-redirect ones in their own layer above them.
    wlr_scene_node* parent = managed() ? &owner_.core().layers.windows->node : owner_.unmanaged_layer();
    // The window's tree holds the surface's and, when kiln decorates it, the decoration around it.
    wlr_scene_tree* tree = wlr_scene_tree_create(parent);
    if (!tree)
        return;
    if (!wlr_scene_subsurface_tree_create(&tree->node, xsurface_->surface)) {
        wlr_scene_node_destroy(&tree->node);
        return;
    }
    node_ = &tree->node;
    wlr_scene_node_set_position(node_, xsurface_->x, xsurface_->y);
    update_decoration();
    if (decoration_ && !xsurface_->fullscreen && !(xsurface_->maximized_vert && xsurface_->maximized_horz))
        keep_decoration_visible();
    owner_.seat().scene_changed();  // the pointer's surface may be another now
    if (managed())
        shown();
}

void XwaylandView::unmap()
{
    if (!node_)
        return;
    decoration_.reset();
    wlr_scene_node_destroy(node_);
    node_ = nullptr;
    owner_.seat().scene_changed();
    if (managed())
        hidden();
}

void XwaylandView::shown()
{
    // A scene hit finds the window through its tree.
    node_->data = static_cast<Toplevel*>(this);
    minimized_ = false;  // a program that maps its window shows it
    if (xsurface_->fullscreen)
        set_fullscreen(true, nullptr);
    else if (xsurface_->maximized_vert && xsurface_->maximized_horz)
        set_maximized(true);
    owner_.toplevels().mapped(*this);
    wl_signal_emit(&events.map, static_cast<Toplevel*>(this));
}

void XwaylandView::hidden()
{
    if (node_)
        node_->data = nullptr;
    end_resize();
    // It is no longer X's active window; the keyboard goes to the window focused before it, if any.
    wlr_seat* seat = owner_.seat().wlr();
    if (xsurface_->surface && seat->keyboard_state.focused_surface == xsurface_->surface)
        set_activated(false);
    owner_.toplevels().hidden(*this);
    wl_signal_emit(&events.unmap, static_cast<Toplevel*>(this));
}

wlr_output* XwaylandView::output() const
{
    return output_in(owner_.core().layout);
}

Toplevel* XwaylandView::parent() const
{
    auto* parent = xsurface_->parent ? static_cast<XwaylandView*>(xsurface_->parent->data) : nullptr;
    return parent && parent->managed() ? parent : nullptr;
}

void XwaylandView::raise()
{
    if (!node_)
        return;
    wlr_scene_node_raise_to_top(node_);
    wlr_xwayland_surface_restack(xsurface_, nullptr, XCB_STACK_MODE_ABOVE);
}

void XwaylandView::set_activated(bool activated)
{
    activated_ = activated;
    wlr_xwayland_surface_activate(xsurface_, activated);
    update_decoration();  // the focused window's colours
}

void XwaylandView::close()
{
    if (owner_.accepts_close(*xsurface_))
        wlr_xwayland_surface_close(xsurface_);
    else
        log::error("X11 window '%s' does not take WM_DELETE_WINDOW: left open rather than killed",
                   xsurface_->title ? xsurface_->title : "");
}

void XwaylandView::configure_request(const wlr_xwayland_surface_configure_event& event)
{
    if (fullscreen_ || maximized_) {
        // A fullscreen or maximized window keeps its state's geometry; X is told so again.
        apply_state(nullptr);
        return;
    }
    // kiln does no tiling: a managed X window goes where it asks, at the size it asks.
    configure({event.x, event.y, event.width, event.height});
}

void XwaylandView::configure(const wlr_box& box)
{
    wlr_xwayland_surface_configure(xsurface_, static_cast<int16_t>(box.x), static_cast<int16_t>(box.y),
                                   static_cast<uint16_t>(box.width), static_cast<uint16_t>(box.height));
    if (node_) {
        wlr_scene_node_set_position(node_, box.x, box.y);
        update_decoration();
        owner_.seat().scene_changed();
    }
}

void XwaylandView::follow_geometry()
{
    // Override-redirect windows move themselves; managed ones report the geometry kiln configured.
    if (node_) {
        wlr_scene_node_set_position(node_, xsurface_->x, xsurface_->y);
        update_decoration();
        owner_.seat().scene_changed();
    }
}

void XwaylandView::move_to(int x, int y)
{
    configure({x, y, xsurface_->width, xsurface_->height});
}

void XwaylandView::begin_resize(uint32_t edges)
{
    anchor_resize(edges);
}

void XwaylandView::request_size(int width, int height)
{
    // Hints wlroots found no minimum or maximum in are -1.
    const wlr_xwayland_surface_size_hints* hints = xsurface_->size_hints;
    width = within(width, hints ? hints->min_width : 0, hints ? hints->max_width : 0);
    height = within(height, hints ? hints->min_height : 0, hints ? hints->max_height : 0);
    // X windows go where kiln says at once: the edges opposite the dragged ones stay where they were.
    configure(anchored(width, height));
}

void XwaylandView::set_fullscreen(bool fullscreen, wlr_output* output)
{
    save_geometry();
    fullscreen_ = fullscreen;
    apply_state(output);
}

void XwaylandView::set_maximized(bool maximized)
{
    save_geometry();
    maximized_ = maximized;
    apply_state(nullptr);
}

void XwaylandView::show_minimized(bool minimized)
{
    wlr_xwayland_surface_set_minimized(xsurface_, minimized);
    if (node_) {
        wlr_scene_node_set_enabled(node_, !minimized);
        owner_.seat().scene_changed();
    }
}

void XwaylandView::apply_state(wlr_output* output)
{
    wlr_output_layout* layout = owner_.core().layout;
    if (!output)
        output = this->output();
    const wlr_box* output_box = output ? wlr_output_layout_get_box(layout, output) : nullptr;
    if (!output_box) {
        fullscreen_ = false;  // no output to fill
        maximized_ = false;
    }
    wlr_xwayland_surface_set_fullscreen(xsurface_, fullscreen_);
    wlr_xwayland_surface_set_maximized(xsurface_, maximized_);
    if (fullscreen_) {
        configure(*output_box);
        raise();
        owner_.desktop().raise_x_menus();
    } else if (maximized_) {
        const wlr_box area = owner_.desktop().usable_area(output);
        // The title bar and borders stay inside the usable area too.
        configure(decorated() ? ServerDecoration::inside(area) : area);
    } else if (const std::optional<wlr_box> saved = take_saved_geometry()) {
        configure(*saved);
    }
    update_decoration();  // none while fullscreen
    wl_signal_emit(&events.state, static_cast<Toplevel*>(this));
}

bool XwaylandView::decorated() const
{
    return node_ && managed() && xsurface_->decorations == WLR_XWAYLAND_SURFACE_DECORATIONS_ALL &&
           !owner_.frameless_type(*xsurface_);
}

void XwaylandView::update_decoration()
{
    const bool wanted = decorated();
    if (wanted != (decoration_ != nullptr)) {
        if (wanted)
            decoration_ = std::make_unique<ServerDecoration>(node_, owner_.core().layout);
        else
            decoration_.reset();
        if (node_)
            owner_.seat().scene_changed();
    }
    update_decoration_frame(xsurface_->width, xsurface_->height, xsurface_->title);
}

void XwaylandView::keep_decoration_visible()
{
    wlr_output* output = this->output();
    if (!output)
        return;
    const wlr_box area = owner_.desktop().usable_area(output);
    constexpr ServerDecoration::Insets insets = ServerDecoration::insets;
    const int x = std::max(static_cast<int>(xsurface_->x), area.x + insets.left);
    const int y = std::max(static_cast<int>(xsurface_->y), area.y + insets.top);
    if (x != xsurface_->x || y != xsurface_->y)
        configure({x, y, xsurface_->width, xsurface_->height});
}

}  // namespace kiln::compositor
