// XdgDecorationRules: a protocol logger checks get_toplevel_decoration and xdg_toplevel.destroy against wlroots'
// list of live decoration objects.
#include "compositor/shell/xdg_decoration_rules.hpp"

#include "xdg-decoration-unstable-v1-protocol.h"
#include "xdg-shell-protocol.h"

#include <cstring>

namespace kiln::compositor {
namespace {

constexpr uint32_t get_toplevel_decoration = 1;
constexpr uint32_t xdg_toplevel_destroy = 0;

bool is(wl_resource* resource, const char* interface)
{
    return std::strcmp(wl_resource_get_class(resource), interface) == 0;
}

}  // namespace

XdgDecorationRules::XdgDecorationRules(wl_display* display, wlr_xdg_decoration_manager_v1* manager)
    : manager_(manager), logger_(wl_display_add_protocol_logger(display, on_message, this))
{
}

XdgDecorationRules::~XdgDecorationRules()
{
    if (logger_)
        wl_protocol_logger_destroy(logger_);
}

wlr_xdg_toplevel_decoration_v1* XdgDecorationRules::decoration_of(wlr_xdg_surface* surface) const
{
    wlr_xdg_toplevel_decoration_v1* decoration;
    wl_list_for_each(decoration, &manager_->decorations, link)
        if (decoration->surface == surface)
            return decoration;
    return nullptr;
}

void XdgDecorationRules::on_message(void* data, wl_protocol_logger_type type,
                                    const wl_protocol_logger_message* message) noexcept
{
    if (type != WL_PROTOCOL_LOGGER_REQUEST)
        return;
    auto& self = *static_cast<XdgDecorationRules*>(data);
    wl_resource* resource = message->resource;
    const uint32_t opcode = message->message_opcode;
    if (opcode == get_toplevel_decoration && is(resource, zxdg_decoration_manager_v1_interface.name)) {
        auto* toplevel = reinterpret_cast<wl_resource*>(message->arguments[1].o);
        wlr_xdg_surface* surface = toplevel ? wlr_xdg_surface_from_toplevel_resource(toplevel) : nullptr;
        if (surface && self.decoration_of(surface))
            wl_resource_post_error(resource, ZXDG_TOPLEVEL_DECORATION_V1_ERROR_ALREADY_CONSTRUCTED,
                                   "the xdg_toplevel already has a decoration object");
    } else if (opcode == xdg_toplevel_destroy && is(resource, xdg_toplevel_interface.name)) {
        wlr_xdg_surface* surface = wlr_xdg_surface_from_toplevel_resource(resource);
        wlr_xdg_toplevel_decoration_v1* decoration = surface ? self.decoration_of(surface) : nullptr;
        if (!decoration)
            return;
        // The client's manager names the error; one it destroyed already leaves the decoration itself to.
        wl_resource* target = decoration->resource;
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
}

}  // namespace kiln::compositor
