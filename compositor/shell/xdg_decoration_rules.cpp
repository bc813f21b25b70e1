// XdgDecorationRules: kiln's request table checks xdg_toplevel.destroy against the live decoration objects.
#include "compositor/shell/xdg_decoration_rules.hpp"

#include "compositor/shell/xdg/xdg_surface.hpp"

#include "xdg-decoration-unstable-v1-protocol.h"
#include "xdg-shell-protocol.h"

#include <cstring>

namespace kiln::compositor {
namespace {

bool is(wl_resource* resource, const char* interface)
{
    return std::strcmp(wl_resource_get_class(resource), interface) == 0;
}

}  // namespace

XdgDecorationRules::XdgDecorationRules(RequestHooks& hooks, const xdg::XdgDecorationManagerV1& manager)
    : manager_(manager),
      hook_(hooks.add(xdg_toplevel_interface, "destroy", HookOrder::decoration_rules,
                      [this](const wl_protocol_logger_message& message) { check_toplevel_destroy(message.resource); }))
{
}

void XdgDecorationRules::check_toplevel_destroy(wl_resource* resource) const
{
    xdg::Toplevel* toplevel = xdg::Toplevel::from_resource(resource);
    xdg::ToplevelDecoration* decoration = toplevel ? manager_.decoration_of(&toplevel->base()) : nullptr;
    if (!decoration)
        return;
    // The client's manager names the error; one it destroyed already leaves the decoration itself to.
    wl_resource* target = decoration->resource();
    wl_client_for_each_resource(
        wl_resource_get_client(resource),
        [](wl_resource* candidate, void* found) -> wl_iterator_result {
            if (!is(candidate, zxdg_decoration_manager_v1_interface.name))
                return WL_ITERATOR_CONTINUE;
            *static_cast<wl_resource**>(found) = candidate;
            return WL_ITERATOR_STOP;
        },
        &target);
    wl_resource_post_error(target, ZXDG_TOPLEVEL_DECORATION_V1_ERROR_ORPHANED,
                           "the xdg_toplevel was destroyed before its decoration object");
}

}  // namespace kiln::compositor
