// xdg_system_bell_v1: the global, its ring request, and what kiln does with a ring.
#include "compositor/protocols/desktop/xdg_system_bell_v1.hpp"
#include "compositor/log.hpp"
#include "compositor/shell/xdg/xdg_surface.hpp"

#include "compositor/session/spawn.hpp"

#include "xdg-system-bell-v1-protocol.h"

#include <cstdio>

namespace kiln::compositor {
namespace {

void destroy_request(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

void ring_request(wl_client*, wl_resource* resource, wl_resource* surface_resource) noexcept
{
    auto* bell = static_cast<XdgSystemBellV1*>(wl_resource_get_user_data(resource));
    if (bell)
        bell->ring(surface_resource ? wlr_surface_from_resource(surface_resource) : nullptr);
}

const struct xdg_system_bell_v1_interface bell_requests = {
    .destroy = destroy_request,
    .ring = ring_request,
};

// An xdg toplevel, or an X11 window's surface (Xwayland rings for its clients' XBell).
bool is_window(wlr_surface* surface)
{
    if (xdg::Surface::has_xdg_role(surface)) {
        const xdg::Surface* xdg = xdg::Surface::from(surface);
        return xdg && xdg->role() == xdg::Role::toplevel;
    }
    return wlr_surface_is_xwayland_surface(surface);
}

}  // namespace

XdgSystemBellV1::XdgSystemBellV1(wl_display* display, const std::string& command)
    : command_(command), global_(wl_global_create(display, &xdg_system_bell_v1_interface, 1, this, bind))
{
}

XdgSystemBellV1::~XdgSystemBellV1()
{
    if (global_)
        wl_global_destroy(global_);
}

void XdgSystemBellV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource = wl_resource_create(client, &xdg_system_bell_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &bell_requests, data, nullptr);
}

void XdgSystemBellV1::ring(wlr_surface* surface)
{
    ++rings_;
    if (surface && is_window(surface))
        ++window_rings_;
    if (command_.empty())
        return;
    const auto now = std::chrono::steady_clock::now();
    if (commands_run_ > 0 && now - last_run_ < kMinInterval)
        return;
    last_run_ = now;
    std::string error;
    if (spawn_shell(command_, error) < 0) {
        log::error("cannot run the [bell] command: %s", error.c_str());
        return;
    }
    ++commands_run_;
}

}  // namespace kiln::compositor
