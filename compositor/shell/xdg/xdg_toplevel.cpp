// xdg_toplevel requests (checked: invalid_resize_edge, invalid_parent, invalid_size) and its configure events.
#include "compositor/shell/xdg/detach_listeners.hpp"
#include "compositor/shell/xdg/xdg_toplevel.hpp"

#include "compositor/shell/xdg/xdg_surface.hpp"

#include "xdg-shell-protocol.h"

#include <vector>

namespace kiln::compositor::xdg {

// The request handlers, with access to the toplevel's state.
struct ToplevelRequests {
    static Toplevel* self(wl_resource* resource) { return Toplevel::from_resource(resource); }

    static SeatRequest seat_request(wl_resource* seat, uint32_t serial)
    {
        SeatRequest request;
        request.seat = seat ? wlr_seat_client_from_resource(seat) : nullptr;
        request.serial = serial;
        return request;
    }

    static void set_title(Toplevel& toplevel, const char* title)
    {
        toplevel.title_ = title;
        toplevel.has_title_ = true;
        wl_signal_emit(&toplevel.events.set_title, &toplevel);
    }

    static void set_app_id(Toplevel& toplevel, const char* app_id)
    {
        toplevel.app_id_ = app_id;
        toplevel.has_app_id_ = true;
        wl_signal_emit(&toplevel.events.set_app_id, &toplevel);
    }

    static void set_limit(wl_resource* resource, int32_t width, int32_t height, bool max)
    {
        Toplevel* toplevel = self(resource);
        if (!toplevel)
            return;
        if (width < 0 || height < 0) {
            wl_resource_post_error(resource, XDG_TOPLEVEL_ERROR_INVALID_SIZE, "%s size %dx%d is negative",
                                   max ? "max" : "min", width, height);
            return;
        }
        ToplevelLimits& limits = toplevel->pending_limits_;
        (max ? limits.max_width : limits.min_width) = width;
        (max ? limits.max_height : limits.min_height) = height;
    }
};

namespace {

bool valid_edges(uint32_t edges)
{
    switch (edges) {
    case XDG_TOPLEVEL_RESIZE_EDGE_NONE:
    case XDG_TOPLEVEL_RESIZE_EDGE_TOP:
    case XDG_TOPLEVEL_RESIZE_EDGE_BOTTOM:
    case XDG_TOPLEVEL_RESIZE_EDGE_LEFT:
    case XDG_TOPLEVEL_RESIZE_EDGE_TOP_LEFT:
    case XDG_TOPLEVEL_RESIZE_EDGE_BOTTOM_LEFT:
    case XDG_TOPLEVEL_RESIZE_EDGE_RIGHT:
    case XDG_TOPLEVEL_RESIZE_EDGE_TOP_RIGHT:
    case XDG_TOPLEVEL_RESIZE_EDGE_BOTTOM_RIGHT: return true;
    default: return false;
    }
}

using R = ToplevelRequests;

const struct xdg_toplevel_interface implementation = {
    .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
    .set_parent =
        [](wl_client*, wl_resource* resource, wl_resource* parent_resource) noexcept {
            Toplevel* toplevel = R::self(resource);
            if (!toplevel)
                return;
            Toplevel* parent = parent_resource ? Toplevel::from_resource(parent_resource) : nullptr;
            if (!toplevel->set_parent(parent))
                wl_resource_post_error(resource, XDG_TOPLEVEL_ERROR_INVALID_PARENT,
                                       parent == toplevel ? "a toplevel cannot be its own parent"
                                                          : "a toplevel cannot be the child of its own descendant");
        },
    .set_title =
        [](wl_client*, wl_resource* resource, const char* title) noexcept {
            Toplevel* toplevel = R::self(resource);
            if (!toplevel)
                return;
            R::set_title(*toplevel, title);
        },
    .set_app_id =
        [](wl_client*, wl_resource* resource, const char* app_id) noexcept {
            Toplevel* toplevel = R::self(resource);
            if (!toplevel)
                return;
            R::set_app_id(*toplevel, app_id);
        },
    .show_window_menu =
        [](wl_client*, wl_resource* resource, wl_resource* seat, uint32_t serial, int32_t x, int32_t y) noexcept {
            Toplevel* toplevel = R::self(resource);
            if (!toplevel)
                return;
            SeatRequest request = R::seat_request(seat, serial);
            request.x = x;
            request.y = y;
            wl_signal_emit(&toplevel->events.request_show_window_menu, &request);
        },
    .move =
        [](wl_client*, wl_resource* resource, wl_resource* seat, uint32_t serial) noexcept {
            Toplevel* toplevel = R::self(resource);
            if (!toplevel)
                return;
            SeatRequest request = R::seat_request(seat, serial);
            wl_signal_emit(&toplevel->events.request_move, &request);
        },
    .resize =
        [](wl_client*, wl_resource* resource, wl_resource* seat, uint32_t serial, uint32_t edges) noexcept {
            Toplevel* toplevel = R::self(resource);
            if (!toplevel)
                return;
            if (!valid_edges(edges)) {
                wl_resource_post_error(resource, XDG_TOPLEVEL_ERROR_INVALID_RESIZE_EDGE, "%u is not a resize edge",
                                       edges);
                return;
            }
            SeatRequest request = R::seat_request(seat, serial);
            request.edges = edges;
            wl_signal_emit(&toplevel->events.request_resize, &request);
        },
    .set_max_size = [](wl_client*, wl_resource* resource, int32_t width,
                       int32_t height) noexcept { R::set_limit(resource, width, height, true); },
    .set_min_size = [](wl_client*, wl_resource* resource, int32_t width,
                       int32_t height) noexcept { R::set_limit(resource, width, height, false); },
    .set_maximized =
        [](wl_client*, wl_resource* resource) noexcept {
            if (Toplevel* toplevel = R::self(resource))
                toplevel->request_maximized(true);
        },
    .unset_maximized =
        [](wl_client*, wl_resource* resource) noexcept {
            if (Toplevel* toplevel = R::self(resource))
                toplevel->request_maximized(false);
        },
    .set_fullscreen =
        [](wl_client*, wl_resource* resource, wl_resource* output) noexcept {
            if (Toplevel* toplevel = R::self(resource))
                toplevel->request_fullscreen(true, output ? wlr_output_from_resource(output) : nullptr);
        },
    .unset_fullscreen =
        [](wl_client*, wl_resource* resource) noexcept {
            if (Toplevel* toplevel = R::self(resource))
                toplevel->request_fullscreen(false, nullptr);
        },
    .set_minimized =
        [](wl_client*, wl_resource* resource) noexcept {
            if (Toplevel* toplevel = R::self(resource))
                toplevel->request_minimized();
        },
};

void add_state(std::vector<uint32_t>& states, bool on, uint32_t state)
{
    if (on)
        states.push_back(state);
}

}  // namespace

Toplevel::Toplevel(Surface& base, wl_client* client, uint32_t version, uint32_t id)
    : base_(base), resource_(wl_resource_create(client, &xdg_toplevel_interface, static_cast<int>(version), id))
{
    wl_signal_init(&events.request_maximize);
    wl_signal_init(&events.request_fullscreen);
    wl_signal_init(&events.request_minimize);
    wl_signal_init(&events.request_move);
    wl_signal_init(&events.request_resize);
    wl_signal_init(&events.request_show_window_menu);
    wl_signal_init(&events.set_parent);
    wl_signal_init(&events.set_title);
    wl_signal_init(&events.set_app_id);
    wl_signal_init(&events.destroy);
    if (!resource_) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource_, &implementation, this, [](wl_resource* resource) noexcept {
        if (Toplevel* self = Toplevel::from_resource(resource))
            self->base_.role_destroyed();  // frees this
    });
    // At once, before any commit: the XML asks only that it come before the first configure, but it costs nothing
    // and a client may build its title bar's buttons before its initial commit.
    send_wm_capabilities();
}

Toplevel::~Toplevel()
{
    wl_signal_emit(&events.destroy, this);
    for (wl_signal* signal : {&events.request_maximize, &events.request_fullscreen, &events.request_minimize,
                              &events.request_move, &events.request_resize, &events.request_show_window_menu,
                              &events.set_parent, &events.set_title, &events.set_app_id, &events.destroy})
        detach_listeners(signal);
}

Toplevel* Toplevel::from_resource(wl_resource* resource)
{
    return resource ? static_cast<Toplevel*>(wl_resource_get_user_data(resource)) : nullptr;
}

uint32_t Toplevel::version() const
{
    return static_cast<uint32_t>(wl_resource_get_version(resource_));
}

void Toplevel::make_inert()
{
    if (resource_)
        wl_resource_set_user_data(resource_, nullptr);
}

bool Toplevel::set_parent(Toplevel* parent)
{
    for (Toplevel* ancestor = parent; ancestor; ancestor = ancestor->parent_)
        if (ancestor == this)
            return false;
    parent_ = parent;
    parent_destroy_.disconnect();
    if (parent)
        parent_destroy_.connect(&parent->events.destroy, [this](void*) {
            // Its parent's own parent takes its place, as the protocol says.
            set_parent(parent_ ? parent_->parent_ : nullptr);
        });
    wl_signal_emit(&events.set_parent, this);
    return true;
}

void Toplevel::request_maximized(bool maximized)
{
    requested_.maximized = maximized;
    wl_signal_emit(&events.request_maximize, this);
}

void Toplevel::request_fullscreen(bool fullscreen, wlr_output* output)
{
    requested_.fullscreen = fullscreen;
    requested_.fullscreen_output = output;
    FullscreenRequest request{fullscreen, output};
    wl_signal_emit(&events.request_fullscreen, &request);
}

void Toplevel::request_minimized()
{
    requested_.minimized = true;
    wl_signal_emit(&events.request_minimize, this);
}

void Toplevel::commit()
{
    const ToplevelLimits& limits = pending_limits_;
    if ((limits.max_width > 0 && limits.min_width > limits.max_width) ||
        (limits.max_height > 0 && limits.min_height > limits.max_height)) {
        wl_resource_post_error(resource_, XDG_TOPLEVEL_ERROR_INVALID_SIZE, "min size %dx%d is above max size %dx%d",
                               limits.min_width, limits.min_height, limits.max_width, limits.max_height);
        return;
    }
    current_limits_ = pending_limits_;
}

void Toplevel::schedule()
{
    if (differs_from_last_sent())
        base_.schedule_configure();
}

void Toplevel::set_size(int32_t width, int32_t height)
{
    pending_.width = width;
    pending_.height = height;
    schedule();
}

void Toplevel::set_activated(bool activated)
{
    pending_.activated = activated;
    schedule();
}

void Toplevel::set_maximized(bool maximized)
{
    pending_.maximized = maximized;
    schedule();
}

void Toplevel::set_fullscreen(bool fullscreen)
{
    pending_.fullscreen = fullscreen;
    schedule();
}

void Toplevel::set_resizing(bool resizing)
{
    pending_.resizing = resizing;
    schedule();
}

void Toplevel::set_tiled(uint32_t edges)
{
    pending_.tiled = edges;
    schedule();
}

void Toplevel::set_constrained(uint32_t edges)
{
    pending_.constrained = edges;
    schedule();
}

void Toplevel::set_suspended(bool suspended)
{
    pending_.suspended = suspended;
    schedule();
}

void Toplevel::set_bounds(int32_t width, int32_t height)
{
    pending_.bounds_width = width;
    pending_.bounds_height = height;
    schedule();
}

void Toplevel::set_wm_capabilities(uint32_t capabilities)
{
    if (capabilities == capabilities_)
        return;
    capabilities_ = capabilities;
    capabilities_sent_ = false;
    base_.schedule_configure();
}

void Toplevel::send_wm_capabilities()
{
    if (version() < XDG_TOPLEVEL_WM_CAPABILITIES_SINCE_VERSION)
        return;
    std::vector<uint32_t> caps;
    add_state(caps, capabilities_ & capability_window_menu, XDG_TOPLEVEL_WM_CAPABILITIES_WINDOW_MENU);
    add_state(caps, capabilities_ & capability_maximize, XDG_TOPLEVEL_WM_CAPABILITIES_MAXIMIZE);
    add_state(caps, capabilities_ & capability_fullscreen, XDG_TOPLEVEL_WM_CAPABILITIES_FULLSCREEN);
    add_state(caps, capabilities_ & capability_minimize, XDG_TOPLEVEL_WM_CAPABILITIES_MINIMIZE);
    wl_array array{caps.size() * sizeof(uint32_t), caps.size() * sizeof(uint32_t), caps.data()};
    xdg_toplevel_send_wm_capabilities(resource_, &array);
    capabilities_sent_ = true;
}

void Toplevel::send_close()
{
    xdg_toplevel_send_close(resource_);
}

void Toplevel::send_configure(const ToplevelState& state)
{
    const uint32_t v = version();
    if (!capabilities_sent_)
        send_wm_capabilities();  // they changed since: the configure that follows makes them count
    if (v >= XDG_TOPLEVEL_CONFIGURE_BOUNDS_SINCE_VERSION && state.bounds_width > 0 && state.bounds_height > 0)
        xdg_toplevel_send_configure_bounds(resource_, state.bounds_width, state.bounds_height);
    std::vector<uint32_t> states;
    add_state(states, state.maximized, XDG_TOPLEVEL_STATE_MAXIMIZED);
    add_state(states, state.fullscreen, XDG_TOPLEVEL_STATE_FULLSCREEN);
    add_state(states, state.resizing, XDG_TOPLEVEL_STATE_RESIZING);
    add_state(states, state.activated, XDG_TOPLEVEL_STATE_ACTIVATED);
    if (v >= XDG_TOPLEVEL_STATE_TILED_LEFT_SINCE_VERSION) {
        add_state(states, state.tiled & WLR_EDGE_LEFT, XDG_TOPLEVEL_STATE_TILED_LEFT);
        add_state(states, state.tiled & WLR_EDGE_RIGHT, XDG_TOPLEVEL_STATE_TILED_RIGHT);
        add_state(states, state.tiled & WLR_EDGE_TOP, XDG_TOPLEVEL_STATE_TILED_TOP);
        add_state(states, state.tiled & WLR_EDGE_BOTTOM, XDG_TOPLEVEL_STATE_TILED_BOTTOM);
    }
    if (v >= XDG_TOPLEVEL_STATE_SUSPENDED_SINCE_VERSION)
        add_state(states, state.suspended, XDG_TOPLEVEL_STATE_SUSPENDED);
    if (v >= XDG_TOPLEVEL_STATE_CONSTRAINED_LEFT_SINCE_VERSION) {
        add_state(states, state.constrained & WLR_EDGE_LEFT, XDG_TOPLEVEL_STATE_CONSTRAINED_LEFT);
        add_state(states, state.constrained & WLR_EDGE_RIGHT, XDG_TOPLEVEL_STATE_CONSTRAINED_RIGHT);
        add_state(states, state.constrained & WLR_EDGE_TOP, XDG_TOPLEVEL_STATE_CONSTRAINED_TOP);
        add_state(states, state.constrained & WLR_EDGE_BOTTOM, XDG_TOPLEVEL_STATE_CONSTRAINED_BOTTOM);
    }
    wl_array array{states.size() * sizeof(uint32_t), states.size() * sizeof(uint32_t), states.data()};
    xdg_toplevel_send_configure(resource_, state.width, state.height, &array);
    last_sent_ = state;
}

}  // namespace kiln::compositor::xdg
