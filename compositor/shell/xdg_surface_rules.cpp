// XdgSurfaceRules: a protocol logger sees each request after libwayland read it and before its handler runs.
#include "compositor/shell/xdg_surface_rules.hpp"

#include "compositor/shell/xdg/xdg_surface.hpp"

#include "xdg-shell-protocol.h"

#include <cstring>

namespace kiln::compositor {
namespace {

constexpr uint32_t xdg_wm_base_get_xdg_surface = 2;
constexpr uint32_t wl_surface_attach = 1;

bool is(wl_resource* resource, const char* interface)
{
    return std::strcmp(wl_resource_get_class(resource), interface) == 0;
}

}  // namespace

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

XdgSurfaceRules::XdgSurfaceRules(wl_display* display)
    : logger_(wl_display_add_protocol_logger(display, on_message, this))
{
}

XdgSurfaceRules::~XdgSurfaceRules()
{
    if (logger_)
        wl_protocol_logger_destroy(logger_);
}

void XdgSurfaceRules::on_message(void* data, wl_protocol_logger_type type,
                                 const wl_protocol_logger_message* message) noexcept
{
    if (type != WL_PROTOCOL_LOGGER_REQUEST)
        return;
    auto& self = *static_cast<XdgSurfaceRules*>(data);
    wl_resource* resource = message->resource;
    const uint32_t opcode = message->message_opcode;
    if (opcode == wl_surface_attach && is(resource, wl_surface_interface.name)) {
        self.check_attach(message);
    } else if (opcode == xdg_wm_base_get_xdg_surface && is(resource, xdg_wm_base_interface.name)) {
        wl_client* client = wl_resource_get_client(resource);
        if (!self.xdg_clients_.count(client)) {
            auto gone = std::make_unique<wl::Listener>();
            gone->connect_client_destroy(client, [&self, client](void*) { self.xdg_clients_.erase(client); });
            self.xdg_clients_.emplace(client, std::move(gone));
        }
    }
}

}  // namespace kiln::compositor
