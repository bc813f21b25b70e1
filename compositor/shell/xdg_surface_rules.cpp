// XdgSurfaceRules: a protocol logger sees each request after libwayland read it and before its handler runs.
#include "compositor/shell/xdg_surface_rules.hpp"

#include "xdg-shell-protocol.h"

#include <cstring>

namespace kiln::compositor {
namespace {

constexpr uint32_t xdg_wm_base_get_xdg_surface = 2;
constexpr uint32_t wl_surface_attach = 1;
constexpr uint32_t xdg_toplevel_set_parent = 1;
// Deeper parent chains than this are not followed (a client cannot build one: each link is checked when made).
constexpr int max_parent_depth = 1000;

bool is(wl_resource* resource, const char* interface)
{
    return std::strcmp(wl_resource_get_class(resource), interface) == 0;
}

wlr_surface* surface_argument(const wl_protocol_logger_message* message, int index)
{
    auto* resource = reinterpret_cast<wl_resource*>(message->arguments[index].o);
    return resource ? wlr_surface_from_resource(resource) : nullptr;
}

bool has_xdg_role(wlr_surface* surface)
{
    return surface->role && (std::strcmp(surface->role->name, "xdg_toplevel") == 0 ||
                             std::strcmp(surface->role->name, "xdg_popup") == 0);
}

// The xdg_surface made for `surface` by its client, if any. A surface with an xdg role names it; one without is
// looked up among its client's objects (rare: a buffer attached before any role, by a client of xdg-shell).
wlr_xdg_surface* xdg_surface_of(wlr_surface* surface)
{
    if (surface->role)
        return has_xdg_role(surface) ? wlr_xdg_surface_from_wlr_surface(surface) : nullptr;
    struct Search {
        wlr_surface* surface;
        wlr_xdg_surface* found;
    } search{surface, nullptr};
    wl_client_for_each_resource(
        wl_resource_get_client(surface->resource),
        [](wl_resource* resource, void* data) -> wl_iterator_result {
            auto* s = static_cast<Search*>(data);
            if (!is(resource, xdg_surface_interface.name))
                return WL_ITERATOR_CONTINUE;
            wlr_xdg_surface* xdg = wlr_xdg_surface_from_resource(resource);
            if (xdg && xdg->surface == s->surface) {
                s->found = xdg;
                return WL_ITERATOR_STOP;
            }
            return WL_ITERATOR_CONTINUE;
        },
        &search);
    return search.found;
}

void check_get_xdg_surface(const wl_protocol_logger_message* message)
{
    wlr_surface* surface = surface_argument(message, 1);
    if (!surface)
        return;
    if (surface->buffer || surface->pending.buffer)
        wl_resource_post_error(message->resource, XDG_WM_BASE_ERROR_INVALID_SURFACE_STATE,
                               "get_xdg_surface on a wl_surface that already has a buffer");
    else if (surface->role && !has_xdg_role(surface))
        wl_resource_post_error(message->resource, XDG_WM_BASE_ERROR_ROLE,
                               "get_xdg_surface on a wl_surface that has the role %s", surface->role->name);
}

void check_set_parent(const wl_protocol_logger_message* message)
{
    auto* parent_resource = reinterpret_cast<wl_resource*>(message->arguments[0].o);
    wlr_xdg_surface* self = wlr_xdg_surface_from_toplevel_resource(message->resource);
    wlr_xdg_surface* parent = parent_resource ? wlr_xdg_surface_from_toplevel_resource(parent_resource) : nullptr;
    if (!self || !parent)
        return;
    for (int depth = 0; parent && depth < max_parent_depth; ++depth) {
        if (parent == self) {
            wl_resource_post_error(message->resource, XDG_TOPLEVEL_ERROR_INVALID_PARENT,
                                   depth == 0 ? "a toplevel cannot be its own parent"
                                              : "a toplevel cannot be the child of its own descendant");
            return;
        }
        parent = parent->role == WLR_XDG_SURFACE_ROLE_TOPLEVEL ? parent->toplevel->parent : nullptr;
    }
}

}  // namespace

void XdgSurfaceRules::check_attach(const wl_protocol_logger_message* message) const
{
    if (!message->arguments[0].o)
        return;  // detaching is always allowed
    if (!xdg_clients_.count(wl_resource_get_client(message->resource)))
        return;
    wlr_surface* surface = wlr_surface_from_resource(message->resource);
    wlr_xdg_surface* xdg = surface ? xdg_surface_of(surface) : nullptr;
    if (xdg && !xdg->configured && wl_list_empty(&xdg->configure_list))
        wl_resource_post_error(xdg->resource, XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER,
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
        check_get_xdg_surface(message);
    } else if (opcode == xdg_toplevel_set_parent && is(resource, xdg_toplevel_interface.name)) {
        check_set_parent(message);
    }
}

}  // namespace kiln::compositor
