// XdgSurfaceRules: xdg-shell errors wlroots 0.15 does not raise, raised before libwayland dispatches the request.
#pragma once

#include "compositor/wlr.hpp"

namespace kiln::compositor {

// - xdg_wm_base.get_xdg_surface on a wl_surface that has a buffer attached or committed: invalid_surface_state.
// (A buffer attached before the first configure is refused at its commit, by wlroots, not at the attach: clients
// that attach early and commit after acking the configure, wlcs's own layer-shell helper among them, keep working.)
class XdgSurfaceRules {
public:
    // Watches every request on `display`; must be destroyed before the display.
    explicit XdgSurfaceRules(wl_display* display);
    ~XdgSurfaceRules();
    XdgSurfaceRules(const XdgSurfaceRules&) = delete;
    XdgSurfaceRules& operator=(const XdgSurfaceRules&) = delete;

private:
    static void on_message(void* data, wl_protocol_logger_type type, const wl_protocol_logger_message* message) noexcept;

    wl_protocol_logger* logger_ = nullptr;
};

}  // namespace kiln::compositor
