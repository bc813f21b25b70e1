// XdgSurfaceRules: kiln's request table sees each request after libwayland read it and before its handler runs.
#include "compositor/shell/xdg_surface_rules.hpp"

#include "compositor/shell/xdg/xdg_surface.hpp"

#include "xdg-shell-protocol.h"

namespace kiln::compositor {
void XdgSurfaceRules::check_attach(const wl_protocol_logger_message* message) const
{
    if (!message->arguments[0].o)
        return;  // detaching is always allowed
    if (!xdg_clients_.count(wl_resource_get_client(message->resource)))
        return;
    wlr_surface* surface = wlr_surface_from_resource(message->resource);
    xdg::Surface* xdg = surface ? xdg::Surface::from(surface) : nullptr;
    if (xdg && !xdg->configured() && !xdg->configure_sent())
        wl_resource_post_error(xdg->resource(), XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER,
                               "a buffer attached before the xdg_surface was sent a configure");
}

XdgSurfaceRules::XdgSurfaceRules(RequestHooks& hooks)
    : attach_hook_(hooks.add(wl_surface_interface, "attach", HookOrder::xdg_surface_rules,
                             [this](const wl_protocol_logger_message& message) { check_attach(&message); })),
      get_xdg_surface_hook_(hooks.add(xdg_wm_base_interface, "get_xdg_surface", HookOrder::xdg_surface_rules,
                                      [this](const wl_protocol_logger_message& message) {
                                          note_xdg_client(wl_resource_get_client(message.resource));
                                      }))
{
}

void XdgSurfaceRules::note_xdg_client(wl_client* client)
{
    if (xdg_clients_.count(client))
        return;
    auto gone = std::make_unique<wl::Listener>();
    gone->connect_client_destroy(client, [this, client](void*) { xdg_clients_.erase(client); });
    xdg_clients_.emplace(client, std::move(gone));
}

}  // namespace kiln::compositor
