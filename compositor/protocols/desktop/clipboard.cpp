// Clipboard globals and the seat's primary-selection requests.
#include "compositor/protocols/desktop/clipboard.hpp"

namespace kiln::compositor {

Clipboard::Clipboard(wl_display* display, wlr_seat* seat) : seat_(seat)
{
    // Both globals are freed by wlroots with the display.
    wlr_primary_selection_v1_device_manager_create(display);
    data_control_ = wlr_data_control_manager_v1_create(display);
    // A client asks through primary-selection; wlroots checked its serial and kiln, like for the clipboard, takes it.
    // (data-control sets the selection directly, without asking.)
    request_primary_.connect(&seat->events.request_set_primary_selection, [this](void* data) {
        auto* event = static_cast<wlr_seat_request_set_primary_selection_event*>(data);
        wlr_seat_set_primary_selection(seat_, event->source, event->serial);
    });
}

}  // namespace kiln::compositor
