// Refused popup grabs: the serial is checked before wlroots handles the request (from a protocol logger, which
// libwayland calls after reading a request and before invoking it), and the popup dismissed once it has.
#include "compositor/shell/popup_grab_guard.hpp"

#include <cstring>

namespace kiln::compositor {

PopupGrabGuard::PopupGrabGuard(wl_display* display)
    : loop_(wl_display_get_event_loop(display)), logger_(wl_display_add_protocol_logger(display, on_message, this))
{
}

PopupGrabGuard::~PopupGrabGuard()
{
    while (!refused_.empty())
        forget(refused_.front().get());
    if (logger_)
        wl_protocol_logger_destroy(logger_);
}

void PopupGrabGuard::on_message(void* guard, wl_protocol_logger_type type,
                                const wl_protocol_logger_message* message) noexcept
{
    if (type != WL_PROTOCOL_LOGGER_REQUEST || std::strcmp(message->message->name, "grab") != 0 ||
        std::strcmp(wl_resource_get_class(message->resource), xdg_popup_interface.name) != 0)
        return;
    auto* surface = static_cast<wlr_xdg_surface*>(wl_resource_get_user_data(message->resource));
    wl_resource* seat = message->arguments[0].o ? reinterpret_cast<wl_resource*>(message->arguments[0].o) : nullptr;
    if (!surface || !seat)
        return;  // an inert popup: wlroots ignores the request
    wlr_seat_client* client = wlr_seat_client_from_resource(seat);
    if (!client || !wlr_seat_client_validate_event_serial(client, message->arguments[1].u))
        static_cast<PopupGrabGuard*>(guard)->refuse(message->resource);
}

void PopupGrabGuard::refuse(wl_resource* popup)
{
    auto& refused = refused_.emplace_back(std::make_unique<Refused>());
    refused->guard = this;
    refused->popup = popup;
    refused->resource_destroyed.notify = [](wl_listener* listener, void*) noexcept {
        Refused* r = wl_container_of(listener, r, resource_destroyed);
        r->guard->forget(r);
    };
    wl_resource_add_destroy_listener(popup, &refused->resource_destroyed);
    refused->idle = wl_event_loop_add_idle(
        loop_,
        [](void* data) noexcept {
            auto* r = static_cast<Refused*>(data);
            r->idle = nullptr;
            auto* surface = static_cast<wlr_xdg_surface*>(wl_resource_get_user_data(r->popup));
            r->guard->forget(r);
            // Sends popup_done, leaves the popup inert and ends the seat's grab if it held only this popup.
            if (surface && surface->role == WLR_XDG_SURFACE_ROLE_POPUP && surface->popup)
                wlr_xdg_popup_destroy(surface);
        },
        refused.get());
}

void PopupGrabGuard::forget(Refused* refused)
{
    wl_list_remove(&refused->resource_destroyed.link);
    if (refused->idle)
        wl_event_source_remove(refused->idle);
    refused_.remove_if([refused](const auto& r) { return r.get() == refused; });
}

}  // namespace kiln::compositor
