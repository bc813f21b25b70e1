// XdgSurfaceRules: the attach-before-configure rule of xdg-shell, checked before libwayland dispatches wl_surface.attach.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/protocol_kit/request_hooks.hpp"
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
    // Watches wl_surface.attach and xdg_wm_base.get_xdg_surface through `hooks`; must be destroyed before them.
    explicit XdgSurfaceRules(RequestHooks& hooks);
    XdgSurfaceRules(const XdgSurfaceRules&) = delete;
    XdgSurfaceRules& operator=(const XdgSurfaceRules&) = delete;

private:
    void check_attach(const wl_protocol_logger_message* message) const;
    void note_xdg_client(wl_client* client);

    // Clients that made an xdg_surface, until they disconnect: only their role-less surfaces can be one's, so the
    // attaches of others (Xwayland's, before wlroots pairs its surfaces) are not looked into.
    std::unordered_map<wl_client*, std::unique_ptr<wl::Listener>> xdg_clients_;
    // Last: removed from the table before the state their handlers read.
    RequestTable::Hook attach_hook_;
    RequestTable::Hook get_xdg_surface_hook_;
};

}  // namespace kiln::compositor
