// DefunctRoleGuard: refuses wl_surface.destroy while the surface's xdg_toplevel or xdg_popup still exists.
//
// wl_surface.destroy says the role object must go first (wl_surface.error.defunct_role_object). wlroots 0.15 lets
// it happen and leaves the role object inert with no data, and several of its xdg_toplevel requests (set_title, ...)
// then dereference that null: one out-of-order destroy and one more request crash the compositor.
#pragma once

#include "compositor/protocol_kit/request_hooks.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class DefunctRoleGuard {
public:
    // Watches wl_surface.destroy through `hooks`; must be destroyed before them.
    explicit DefunctRoleGuard(RequestHooks& hooks);
    DefunctRoleGuard(const DefunctRoleGuard&) = delete;
    DefunctRoleGuard& operator=(const DefunctRoleGuard&) = delete;

private:
    RequestTable::Hook hook_;
};

}  // namespace kiln::compositor
