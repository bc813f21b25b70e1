// XdgDecorationRules: the xdg-decoration errors wlroots 0.15 does not raise, raised before libwayland dispatches the
// request: a second zxdg_toplevel_decoration_v1 for one toplevel (already_constructed), and an xdg_toplevel destroyed
// while its decoration object lives (orphaned). Both are posted on the client's zxdg_decoration_manager_v1, as the
// conformance suites expect.
#pragma once

#include "compositor/shell/xdg/xdg_decoration_v1.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class XdgDecorationRules {
public:
    // Watches every request on `display`; must be destroyed before the display and `manager`.
    XdgDecorationRules(wl_display* display, const xdg::XdgDecorationManagerV1& manager);
    ~XdgDecorationRules();
    XdgDecorationRules(const XdgDecorationRules&) = delete;
    XdgDecorationRules& operator=(const XdgDecorationRules&) = delete;

private:
    static void on_message(void* data, wl_protocol_logger_type type, const wl_protocol_logger_message* message) noexcept;

    const xdg::XdgDecorationManagerV1& manager_;
    wl_protocol_logger* logger_ = nullptr;
};

}  // namespace kiln::compositor
