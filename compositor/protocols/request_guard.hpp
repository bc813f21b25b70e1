// RequestGuard: defuses client requests that wlroots 0.15 crashes on, before libwayland dispatches them.
#pragma once

#include "compositor/wlr.hpp"

#include <map>
#include <memory>

namespace kiln::compositor {

class RequestGuard {
public:
    // Watches every request on `display`; must be destroyed before the display.
    explicit RequestGuard(wl_display* display);
    ~RequestGuard();
    RequestGuard(const RequestGuard&) = delete;
    RequestGuard& operator=(const RequestGuard&) = delete;

private:
    // A wl_subsurface whose user data is hidden from wlroots for one request, given back when the resource is
    // destroyed (before wlroots' own destroy callback runs), unless wlroots freed the subsurface first.
    struct Hidden {
        wl_listener resource_destroyed{};
        wl_listener subsurface_destroyed{};
        RequestGuard* guard = nullptr;
        wlr_subsurface* subsurface = nullptr;
    };

    static void on_message(void* guard, wl_protocol_logger_type type, const wl_protocol_logger_message* message) noexcept;
    void refuse_orphan_subsurface_restack(wl_resource* resource, const char* request);
    static void refuse_popup_cycle(wlr_xdg_surface* surface, const wl_protocol_logger_message* message);
    static void give_back(wl_listener* listener, void* resource) noexcept;
    static void forget(wl_listener* listener, void* subsurface) noexcept;

    wl_protocol_logger* logger_ = nullptr;
    std::map<wl_resource*, std::unique_ptr<Hidden>> hidden_;
};

}  // namespace kiln::compositor
