// Checks each wl_surface.destroy before libwayland runs it: an xdg role object still alive is a protocol error.
//
// A protocol logger sees the request first (libwayland has no other hook before a request is dispatched). The error
// stops libwayland from dispatching anything more from the client, so the inert role object is never used; the
// client is then disconnected and its resources destroyed, which wlroots handles for inert objects.
#include "compositor/shell/defunct_role_guard.hpp"

#include <cstring>

namespace kiln::compositor {
namespace {

// Whether the surface's xdg_toplevel or xdg_popup resource is still alive.
bool has_live_xdg_role_object(wlr_surface* surface)
{
    if (!surface || !wlr_surface_is_xdg_surface(surface))
        return false;
    wlr_xdg_surface* xdg = wlr_xdg_surface_from_wlr_surface(surface);  // null once the xdg_surface is gone
    if (!xdg)
        return false;
    switch (xdg->role) {
    case WLR_XDG_SURFACE_ROLE_TOPLEVEL: return xdg->toplevel && xdg->toplevel->resource;
    case WLR_XDG_SURFACE_ROLE_POPUP: return xdg->popup && xdg->popup->resource;
    case WLR_XDG_SURFACE_ROLE_NONE: return false;
    }
    return false;
}

}  // namespace

DefunctRoleGuard::DefunctRoleGuard(wl_display* display)
    : logger_(wl_display_add_protocol_logger(display, &DefunctRoleGuard::on_message, this))
{
}

DefunctRoleGuard::~DefunctRoleGuard()
{
    if (logger_)
        wl_protocol_logger_destroy(logger_);
}

void DefunctRoleGuard::on_message(void*, wl_protocol_logger_type direction,
                                  const wl_protocol_logger_message* message) noexcept
{
    if (direction != WL_PROTOCOL_LOGGER_REQUEST ||
        std::strcmp(wl_resource_get_class(message->resource), wl_surface_interface.name) != 0 ||
        std::strcmp(message->message->name, "destroy") != 0)
        return;
    if (has_live_xdg_role_object(wlr_surface_from_resource(message->resource)))
        wl_resource_post_error(message->resource, WL_SURFACE_ERROR_DEFUNCT_ROLE_OBJECT,
                               "wl_surface destroyed before its xdg_toplevel or xdg_popup");
}

}  // namespace kiln::compositor
