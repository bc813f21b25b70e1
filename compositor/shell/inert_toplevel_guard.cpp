// Swaps an inert xdg_toplevel's implementation for no-ops just before libwayland dispatches a request to it.
//
// wlroots 0.15 clears the toplevel resource's user data when its wl_surface (or xdg_surface) goes, but leaves its
// request handlers in place, and they use the data unchecked (wlroots issue #2643). A protocol logger runs for each
// request after it is read and before it is invoked, and libwayland reads the implementation only at invoke time, so
// replacing it there makes the request harmless: an inert object ignores requests, as libwayland objects do.
#include "compositor/shell/inert_toplevel_guard.hpp"

#include "xdg-shell-protocol.h"

#include <cstring>

namespace kiln::compositor {
namespace {

const struct xdg_toplevel_interface inert_toplevel = {
    .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
    .set_parent = [](wl_client*, wl_resource*, wl_resource*) noexcept {},
    .set_title = [](wl_client*, wl_resource*, const char*) noexcept {},
    .set_app_id = [](wl_client*, wl_resource*, const char*) noexcept {},
    .show_window_menu = [](wl_client*, wl_resource*, wl_resource*, uint32_t, int32_t, int32_t) noexcept {},
    .move = [](wl_client*, wl_resource*, wl_resource*, uint32_t) noexcept {},
    .resize = [](wl_client*, wl_resource*, wl_resource*, uint32_t, uint32_t) noexcept {},
    .set_max_size = [](wl_client*, wl_resource*, int32_t, int32_t) noexcept {},
    .set_min_size = [](wl_client*, wl_resource*, int32_t, int32_t) noexcept {},
    .set_maximized = [](wl_client*, wl_resource*) noexcept {},
    .unset_maximized = [](wl_client*, wl_resource*) noexcept {},
    .set_fullscreen = [](wl_client*, wl_resource*, wl_resource*) noexcept {},
    .unset_fullscreen = [](wl_client*, wl_resource*) noexcept {},
    .set_minimized = [](wl_client*, wl_resource*) noexcept {},
};

void on_message(void*, wl_protocol_logger_type type, const wl_protocol_logger_message* message) noexcept
{
    wl_resource* resource = message->resource;
    // Cheapest test first: live wlroots objects all carry user data.
    if (type != WL_PROTOCOL_LOGGER_REQUEST || wl_resource_get_user_data(resource) != nullptr ||
        std::strcmp(wl_resource_get_class(resource), xdg_toplevel_interface.name) != 0)
        return;
    // No destroy callback: wlroots' own does nothing for an inert toplevel, and nothing else is attached.
    wl_resource_set_implementation(resource, &inert_toplevel, nullptr, nullptr);
}

}  // namespace

InertToplevelGuard::InertToplevelGuard(wl_display* display)
    : logger_(wl_display_add_protocol_logger(display, on_message, nullptr))
{
}

InertToplevelGuard::~InertToplevelGuard()
{
    if (logger_)
        wl_protocol_logger_destroy(logger_);
}

}  // namespace kiln::compositor
