// XdgDecorationRules: the xdg-decoration errors wlroots 0.15 does not raise, raised before libwayland dispatches the
// request: a second zxdg_toplevel_decoration_v1 for one toplevel (already_constructed), and an xdg_toplevel destroyed
// while its decoration object lives (orphaned). Both are posted on the client's zxdg_decoration_manager_v1, as the
// conformance suites expect.
#pragma once

#include "compositor/protocol_kit/request_hooks.hpp"
#include "compositor/shell/xdg/xdg_decoration_v1.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class XdgDecorationRules {
public:
    // Watches xdg_toplevel.destroy through `hooks`; must be destroyed before them and `manager`.
    XdgDecorationRules(RequestHooks& hooks, const xdg::XdgDecorationManagerV1& manager);
    XdgDecorationRules(const XdgDecorationRules&) = delete;
    XdgDecorationRules& operator=(const XdgDecorationRules&) = delete;

private:
    void check_toplevel_destroy(wl_resource* resource) const;

    const xdg::XdgDecorationManagerV1& manager_;
    RequestTable::Hook hook_;
};

}  // namespace kiln::compositor
