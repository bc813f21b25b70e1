// XdgSurfaceRules: a protocol logger sees each request after libwayland read it and before its handler runs.
#include "compositor/shell/xdg_surface_rules.hpp"

#include "xdg-shell-protocol.h"

#include <cstring>

namespace kiln::compositor {
namespace {

constexpr uint32_t xdg_wm_base_get_xdg_surface = 2;

bool is(wl_resource* resource, const char* interface)
{
    return std::strcmp(wl_resource_get_class(resource), interface) == 0;
}

}  // namespace

XdgSurfaceRules::XdgSurfaceRules(wl_display* display)
    : logger_(wl_display_add_protocol_logger(display, on_message, this))
{
}

XdgSurfaceRules::~XdgSurfaceRules()
{
    if (logger_)
        wl_protocol_logger_destroy(logger_);
}

void XdgSurfaceRules::on_message(void*, wl_protocol_logger_type type,
                                 const wl_protocol_logger_message* message) noexcept
{
    if (type != WL_PROTOCOL_LOGGER_REQUEST)
        return;
    wl_resource* resource = message->resource;
    if (message->message_opcode == xdg_wm_base_get_xdg_surface && is(resource, xdg_wm_base_interface.name)) {
        auto* surface_resource = reinterpret_cast<wl_resource*>(message->arguments[1].o);
        wlr_surface* surface = surface_resource ? wlr_surface_from_resource(surface_resource) : nullptr;
        if (surface && (surface->buffer || surface->pending.buffer))
            wl_resource_post_error(resource, XDG_WM_BASE_ERROR_INVALID_SURFACE_STATE,
                                   "get_xdg_surface on a wl_surface that already has a buffer");
    }
}

}  // namespace kiln::compositor
