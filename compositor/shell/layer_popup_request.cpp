// A dispatcher for zwlr_layer_surface_v1 objects: get_popup is kiln's, the other requests are forwarded to the
// implementation wlroots gave the resource (which stays the resource's, so wlroots' own type checks still pass).
#include "compositor/shell/layer_popup_request.hpp"

#include "compositor/shell/xdg/xdg_surface.hpp"

#include "wlr-layer-shell-unstable-v1-protocol.h"

// The resource's first fields (its implementation and destructor) are only readable through libwayland's
// deprecated public struct, which libwayland keeps laid out as before for its users.
#include <wayland-server.h>

namespace kiln::compositor {
namespace {

// Request opcodes, in the order wlr-layer-shell-unstable-v1.xml declares them.
enum Opcode : uint32_t {
    set_size, set_anchor, set_exclusive_zone, set_margin, set_keyboard_interactivity, get_popup_request,
    ack_configure, destroy, set_layer
};

void get_popup(wl_resource* layer_resource, wl_resource* popup_resource)
{
    auto* layer_surface = static_cast<wlr_layer_surface_v1*>(wl_resource_get_user_data(layer_resource));
    xdg::Popup* popup = xdg::Popup::from_resource(popup_resource);
    if (!layer_surface)
        return;  // inert: ignored, as wlroots does
    if (!popup || popup->parent() || popup->base().added()) {
        wl_resource_post_error(layer_resource, ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SURFACE_STATE,
                               "get_popup: the xdg_popup is gone, already has a parent or was committed");
        return;
    }
    popup->set_parent(layer_surface->surface);
    wl_signal_emit(&layer_surface->events.new_popup, popup);
}

int dispatch(const void* implementation, void* target, uint32_t opcode, const wl_message*,
             wl_argument* args) noexcept
{
    auto* resource = static_cast<wl_resource*>(target);
    const auto* wlr = static_cast<const struct zwlr_layer_surface_v1_interface*>(implementation);
    wl_client* client = wl_resource_get_client(resource);
    auto object = [](const wl_argument& arg) { return reinterpret_cast<wl_resource*>(arg.o); };
    switch (opcode) {
    case set_size: wlr->set_size(client, resource, args[0].u, args[1].u); break;
    case set_anchor: wlr->set_anchor(client, resource, args[0].u); break;
    case set_exclusive_zone: wlr->set_exclusive_zone(client, resource, args[0].i); break;
    case set_margin:
        wlr->set_margin(client, resource, args[0].i, args[1].i, args[2].i, args[3].i);
        break;
    case set_keyboard_interactivity:
        wlr->set_keyboard_interactivity(client, resource, args[0].u);
        break;
    case get_popup_request: get_popup(resource, object(args[0])); break;
    case ack_configure: wlr->ack_configure(client, resource, args[0].u); break;
    case destroy: wlr->destroy(client, resource); break;
    case set_layer: wlr->set_layer(client, resource, args[0].u); break;
    default: break;
    }
    return 0;
}

}  // namespace

void take_over_get_popup(wlr_layer_surface_v1* layer_surface)
{
    wl_resource* resource = layer_surface->resource;
    wl_resource_set_dispatcher(resource, dispatch, resource->object.implementation, wl_resource_get_user_data(resource),
                               resource->destroy);
}

}  // namespace kiln::compositor
