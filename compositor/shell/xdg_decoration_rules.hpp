// XdgDecorationRules: the xdg-decoration errors wlroots 0.15 does not raise, raised before libwayland dispatches the
// request: a second zxdg_toplevel_decoration_v1 for one toplevel (already_constructed), and an xdg_toplevel destroyed
// while its decoration object lives (orphaned). Both are posted on the client's zxdg_decoration_manager_v1, as the
// conformance suites expect.
#pragma once

#include "compositor/wlr.hpp"

namespace kiln::compositor {

class XdgDecorationRules {
public:
    // Watches every request on `display`; must be destroyed before the display and `manager`.
    XdgDecorationRules(wl_display* display, wlr_xdg_decoration_manager_v1* manager);
    ~XdgDecorationRules();
    XdgDecorationRules(const XdgDecorationRules&) = delete;
    XdgDecorationRules& operator=(const XdgDecorationRules&) = delete;

private:
    static void on_message(void* data, wl_protocol_logger_type type, const wl_protocol_logger_message* message) noexcept;
    wlr_xdg_toplevel_decoration_v1* decoration_of(wlr_xdg_surface* surface) const;

    wlr_xdg_decoration_manager_v1* manager_;
    wl_protocol_logger* logger_ = nullptr;
};

}  // namespace kiln::compositor
