// XdgSurfaceRules: the attach-before-configure rule of xdg-shell, checked before libwayland dispatches wl_surface.attach.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <memory>
#include <unordered_map>

namespace kiln::compositor {

// wl_surface.attach of a buffer to an xdg_surface's wl_surface before kiln sent that xdg_surface any configure:
// unconfigured_buffer at the attach. A buffer attached once a configure was sent and committed before it is acked is
// refused at its commit (xdg::Surface): clients that attach on receiving the configure and commit after acking it
// keep working. The other xdg-shell rules are the protocol objects' own (compositor/shell/xdg/).
class XdgSurfaceRules {
public:
    // Watches every request on `display`; must be destroyed before the display.
    explicit XdgSurfaceRules(wl_display* display);
    ~XdgSurfaceRules();
    XdgSurfaceRules(const XdgSurfaceRules&) = delete;
    XdgSurfaceRules& operator=(const XdgSurfaceRules&) = delete;

private:
    static void on_message(void* data, wl_protocol_logger_type type, const wl_protocol_logger_message* message) noexcept;
    void check_attach(const wl_protocol_logger_message* message) const;

    wl_protocol_logger* logger_ = nullptr;
    // Clients that made an xdg_surface, until they disconnect: only their role-less surfaces can be one's, so the
    // attaches of others (Xwayland's, before wlroots pairs its surfaces) are not looked into.
    std::unordered_map<wl_client*, std::unique_ptr<wl::Listener>> xdg_clients_;
};

}  // namespace kiln::compositor
