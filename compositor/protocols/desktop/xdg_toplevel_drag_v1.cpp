// xdg_toplevel_drag_manager_v1 and xdg_toplevel_drag_v1: a toplevel moved with a wl_data_device drag, its errors.
#include "compositor/protocols/desktop/xdg_toplevel_drag_v1.hpp"

#include "compositor/shell/toplevels.hpp"
#include "compositor/shell/view.hpp"
#include "compositor/shell/xdg/xdg_surface.hpp"
#include "compositor/shell/xdg/xdg_toplevel.hpp"

#include "xdg-toplevel-drag-v1-protocol.h"

#include <cmath>

namespace kiln::compositor {

// One xdg_toplevel_drag_v1: its data source, the drag once started, and the toplevel attached to it.
struct XdgToplevelDragV1::Drag {
    wl_resource* resource = nullptr;
    wl_resource* manager = nullptr;      // the manager that made it; null once that is destroyed
    wlr_data_source* source = nullptr;   // null once destroyed
    wlr_drag* drag = nullptr;            // while the drag runs
    bool ended = false;                  // the drag ran and ended (dropped or cancelled)
    wl_resource* toplevel = nullptr;     // the attached xdg_toplevel; null when none
    int32_t x_offset = 0;
    int32_t y_offset = 0;

    wl::Listener source_destroyed;
    wl::Listener drag_destroyed;
    wl::Listener toplevel_destroyed;
    wl::Listener committed;
    wl::Listener unmapped;
};

namespace {

XdgToplevelDragV1* owner_of(wl_resource* resource)
{
    return static_cast<XdgToplevelDragV1*>(wl_resource_get_user_data(resource));
}

// The wlr_data_source of a wl_data_source resource; null once it is inert (wlroots cleared it). wlroots 0.15 keeps
// a wlr_client_data_source as the resource's data, whose first member is the wlr_data_source (types/data_device/
// wlr_data_source.c); every wl_data_source in kiln is wlroots'.
wlr_data_source* data_source_of(wl_resource* resource)
{
    return static_cast<wlr_data_source*>(wl_resource_get_user_data(resource));
}

View* view_of(wl_resource* toplevel)
{
    const xdg::Toplevel* xdg = xdg::Toplevel::from_resource(toplevel);
    return xdg ? View::from(&xdg->base()) : nullptr;
}

}  // namespace

XdgToplevelDragV1::XdgToplevelDragV1(wl_display* display, wlr_seat* seat, wlr_cursor* cursor, Toplevels& toplevels)
    : global_(wl_global_create(display, &xdg_toplevel_drag_manager_v1_interface, 1, this, bind)),
      seat_(seat),
      cursor_(cursor),
      toplevels_(toplevels)
{
    start_drag_.connect(&seat->events.start_drag, [this](void* data) { drag_started(static_cast<wlr_drag*>(data)); });
    // After the seat's own listener (made before this room), which has taken the selection already: the client is
    // disconnected for it, and its source (with the selection) goes with it.
    set_selection_.connect(&seat->events.request_set_selection, [this](void* data) {
        auto* event = static_cast<wlr_seat_request_set_selection_event*>(data);
        Drag* drag = event->source ? find(event->source) : nullptr;
        if (!drag)
            return;
        if (drag->manager)
            wl_resource_post_error(drag->manager, XDG_TOPLEVEL_DRAG_MANAGER_V1_ERROR_INVALID_SOURCE,
                                   "the data source of an xdg_toplevel_drag_v1 given to set_selection");
        else
            wl_client_post_implementation_error(wl_resource_get_client(drag->resource),
                                                "the data source of an xdg_toplevel_drag_v1 given to set_selection");
    });
    // After the seat's listeners, which have moved the cursor.
    auto moved = [this](void*) {
        for (auto& [resource, drag] : drags_)
            follow(*drag);
    };
    motion_.connect(&cursor->events.motion, moved);
    motion_absolute_.connect(&cursor->events.motion_absolute, moved);
}

XdgToplevelDragV1::~XdgToplevelDragV1()
{
    for (auto& [resource, drag] : drags_)
        wl_resource_set_user_data(resource, nullptr);
    drags_.clear();
    if (global_)
        wl_global_destroy(global_);
}

wlr_scene_node* XdgToplevelDragV1::carried() const
{
    for (const auto& [resource, drag] : drags_) {
        View* view = drag->drag && drag->toplevel ? view_of(drag->toplevel) : nullptr;
        if (view && view->mapped())
            return view->node();
    }
    return nullptr;
}

XdgToplevelDragV1::Drag* XdgToplevelDragV1::find(wlr_data_source* source)
{
    for (auto& [resource, drag] : drags_)
        if (drag->source == source)
            return drag.get();
    return nullptr;
}

bool XdgToplevelDragV1::attached_elsewhere(wl_resource* toplevel, const Drag* except) const
{
    for (const auto& [resource, drag] : drags_)
        if (drag.get() != except && drag->toplevel == toplevel)
            return true;
    return false;
}

void XdgToplevelDragV1::forget_manager(wl_resource* manager)
{
    for (auto& [resource, drag] : drags_)
        if (drag->manager == manager)
            drag->manager = nullptr;
}

void XdgToplevelDragV1::get_drag(wl_resource* manager, uint32_t id, wl_resource* source_resource)
{
    wl_client* client = wl_resource_get_client(manager);
    wlr_data_source* source = data_source_of(source_resource);
    // The source must still be one a drag can start with: not one already given to start_drag or set_selection (a
    // drag under way, the selection), nor one another toplevel drag holds.
    const char* refused = nullptr;
    if (!source)
        refused = "the data source is inert";
    else if (find(source))
        refused = "the data source already has an xdg_toplevel_drag_v1";
    else if (seat_->drag && seat_->drag->source == source)
        refused = "the data source's drag has started already";
    else if (seat_->selection_source == source)
        refused = "the data source is the selection";
    if (refused) {
        wl_resource_post_error(manager, XDG_TOPLEVEL_DRAG_MANAGER_V1_ERROR_INVALID_SOURCE, "%s", refused);
        return;
    }
    wl_resource* resource = wl_resource_create(client, &xdg_toplevel_drag_v1_interface,
                                               wl_resource_get_version(manager), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    auto drag = std::make_unique<Drag>();
    drag->resource = resource;
    drag->manager = manager;
    drag->source = source;
    Drag* raw = drag.get();
    drag->source_destroyed.connect(&source->events.destroy, [raw](void*) {
        raw->source = nullptr;
        raw->source_destroyed.disconnect();
    });
    drags_.emplace(resource, std::move(drag));

    static const struct xdg_toplevel_drag_v1_interface requests = {
        .destroy =
            [](wl_client*, wl_resource* resource) noexcept {
                XdgToplevelDragV1* self = owner_of(resource);
                if (self) {
                    Drag& drag = *self->drags_.at(resource);
                    if (drag.drag) {
                        wl_resource_post_error(resource, XDG_TOPLEVEL_DRAG_V1_ERROR_ONGOING_DRAG,
                                               "destroyed while its drag runs");
                        return;
                    }
                }
                wl_resource_destroy(resource);
            },
        .attach =
            [](wl_client*, wl_resource* resource, wl_resource* toplevel, int32_t x_offset, int32_t y_offset) noexcept {
                if (XdgToplevelDragV1* self = owner_of(resource))
                    self->attach(*self->drags_.at(resource), toplevel, x_offset, y_offset);
            },
    };
    wl_resource_set_implementation(resource, &requests, this, [](wl_resource* resource) noexcept {
        if (XdgToplevelDragV1* self = owner_of(resource))
            self->drags_.erase(resource);  // its listeners go with it
    });
}

void XdgToplevelDragV1::attach(Drag& drag, wl_resource* toplevel, int32_t x_offset, int32_t y_offset)
{
    xdg::Toplevel* xdg = xdg::Toplevel::from_resource(toplevel);
    if (drag.toplevel && drag.toplevel != toplevel) {
        // Still attached: an unmapped or destroyed one was detached already.
        wl_resource_post_error(drag.resource, XDG_TOPLEVEL_DRAG_V1_ERROR_TOPLEVEL_ATTACHED,
                               "a toplevel is attached to this drag already");
        return;
    }
    if (attached_elsewhere(toplevel, &drag)) {
        wl_resource_post_error(drag.resource, XDG_TOPLEVEL_DRAG_V1_ERROR_TOPLEVEL_ATTACHED,
                               "the toplevel is attached to another drag");
        return;
    }
    // An inert toplevel, or a drag that is over, moves nothing.
    if (!xdg || drag.ended)
        return;
    drag.x_offset = x_offset;
    drag.y_offset = y_offset;
    if (drag.toplevel == toplevel) {
        follow(drag);  // the same one again: a new offset
        return;
    }
    drag.toplevel = toplevel;
    Drag* raw = &drag;
    drag.toplevel_destroyed.connect(&xdg->events.destroy, [this, raw](void*) { detach(*raw); });
    // A toplevel attached before its first commit has no window yet: kiln makes and places it as it maps, inside
    // the commit; the xdg_surface's commit event comes after that, and the drag moves it from there on (a window
    // mapped already is where follow() put it, so nothing moves).
    drag.committed.connect(&xdg->base().events.commit, [this, raw](void*) {
        View* view = view_of(raw->toplevel);
        if (!view || !view->mapped() || !raw->drag)
            return;
        const wlr_box at = view->geometry();
        if (at.x != target_x(*raw) || at.y != target_y(*raw)) {
            view->raise();
            follow(*raw);
        }
    });
    drag.unmapped.connect(&xdg->base().events.unmap, [this, raw](void*) { detach(*raw); });
    if (View* view = view_of(toplevel); view && view->mapped() && drag.drag)
        view->raise();
    follow(drag);
}

void XdgToplevelDragV1::detach(Drag& drag)
{
    drag.toplevel = nullptr;
    drag.toplevel_destroyed.disconnect();
    drag.committed.disconnect();
    drag.unmapped.disconnect();
}

// The offset is in the window geometry's coordinates; a View's position is its geometry's top-left.
int XdgToplevelDragV1::target_x(const Drag& drag) const
{
    return static_cast<int>(std::floor(cursor_->x)) - drag.x_offset;
}

int XdgToplevelDragV1::target_y(const Drag& drag) const
{
    return static_cast<int>(std::floor(cursor_->y)) - drag.y_offset;
}

void XdgToplevelDragV1::follow(Drag& drag)
{
    if (!drag.drag || !drag.toplevel)
        return;
    View* view = view_of(drag.toplevel);
    if (!view || !view->mapped())
        return;
    view->move_to(target_x(drag), target_y(drag));
}

void XdgToplevelDragV1::drag_started(wlr_drag* wlr)
{
    Drag* drag = wlr->source ? find(wlr->source) : nullptr;
    if (!drag)
        return;
    ++drags_started_;
    drag->drag = wlr;
    drag->drag_destroyed.connect(&wlr->events.destroy, [this, drag](void*) { drag_ended(*drag); });
    if (View* view = view_of(drag->toplevel); view && view->mapped())
        view->raise();
    follow(*drag);
}

void XdgToplevelDragV1::drag_ended(Drag& drag)
{
    drag.drag = nullptr;
    drag.ended = true;
    drag.drag_destroyed.disconnect();
    // Dropped or cancelled, the window stays where the pointer left it, a window like any other: in front, focused.
    View* view = drag.toplevel ? view_of(drag.toplevel) : nullptr;
    detach(drag);
    if (view && view->mapped())
        toplevels_.focus(view);
}

void XdgToplevelDragV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource =
        wl_resource_create(client, &xdg_toplevel_drag_manager_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    static const struct xdg_toplevel_drag_manager_v1_interface requests = {
        .destroy = [](wl_client*, wl_resource* manager) noexcept { wl_resource_destroy(manager); },
        .get_xdg_toplevel_drag =
            [](wl_client*, wl_resource* manager, uint32_t id, wl_resource* source) noexcept {
                if (XdgToplevelDragV1* self = owner_of(manager))
                    self->get_drag(manager, id, source);
            },
    };
    wl_resource_set_implementation(resource, &requests, data, [](wl_resource* manager) noexcept {
        if (XdgToplevelDragV1* self = owner_of(manager))
            self->forget_manager(manager);
    });
}

}  // namespace kiln::compositor
