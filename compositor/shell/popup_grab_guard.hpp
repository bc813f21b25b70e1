// PopupGrabGuard: a popup whose xdg_popup.grab names a serial its client never got from an input event is dismissed
// at once, as xdg-shell asks of a refused grab (wlroots 0.15 grants every grab).
#pragma once

#include "compositor/wlr.hpp"

#include <list>
#include <memory>

namespace kiln::compositor {

class PopupGrabGuard {
public:
    // Watches the requests on `display`; must be destroyed before it.
    explicit PopupGrabGuard(wl_display* display);
    ~PopupGrabGuard();
    PopupGrabGuard(const PopupGrabGuard&) = delete;
    PopupGrabGuard& operator=(const PopupGrabGuard&) = delete;

private:
    // An xdg_popup to dismiss once wlroots has handled its grab request (on the event loop's next idle turn), unless
    // the resource goes first. The resource, not the wlr_xdg_surface, is held: wlroots clears its user data when it
    // frees the popup, so the idle turn finds either a live popup or none.
    struct Refused {
        wl_listener resource_destroyed{};
        PopupGrabGuard* guard = nullptr;
        wl_resource* popup = nullptr;
        wl_event_source* idle = nullptr;
    };

    static void on_message(void* guard, wl_protocol_logger_type type,
                           const wl_protocol_logger_message* message) noexcept;
    void refuse(wl_resource* popup);
    void forget(Refused* refused);

    wl_event_loop* loop_;
    wl_protocol_logger* logger_ = nullptr;
    std::list<std::unique_ptr<Refused>> refused_;
};

}  // namespace kiln::compositor
