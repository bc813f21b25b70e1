// Checks each wl_surface.destroy before libwayland runs it: an xdg role object still alive is a protocol error.
//
// kiln's request table (one protocol logger) sees the request first (libwayland has no other hook before a request is dispatched). The error
// stops libwayland from dispatching anything more from the client, so the inert role object is never used; the
// client is then disconnected and its resources destroyed, which wlroots handles for inert objects.
#include "compositor/shell/defunct_role_guard.hpp"

#include "compositor/shell/xdg/xdg_surface.hpp"

namespace kiln::compositor {
namespace {

// Whether the surface's xdg_toplevel or xdg_popup resource is still alive.
bool has_live_xdg_role_object(wlr_surface* surface)
{
    const xdg::Surface* xdg = xdg::Surface::from(surface);  // null once the xdg_surface is gone
    return xdg && (xdg->toplevel() || xdg->popup());
}

}  // namespace

DefunctRoleGuard::DefunctRoleGuard(RequestHooks& hooks)
    : hook_(hooks.add(wl_surface_interface, "destroy", HookOrder::defunct_role,
                      [](const wl_protocol_logger_message& message) {
                          if (has_live_xdg_role_object(wlr_surface_from_resource(message.resource)))
                              wl_resource_post_error(message.resource, WL_SURFACE_ERROR_DEFUNCT_ROLE_OBJECT,
                                                     "wl_surface destroyed before its xdg_toplevel or xdg_popup");
                      }))
{
}

}  // namespace kiln::compositor
