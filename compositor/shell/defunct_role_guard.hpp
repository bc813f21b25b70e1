// DefunctRoleGuard: refuses wl_surface.destroy while the surface's xdg_toplevel or xdg_popup still exists.
//
// wl_surface.destroy says the role object must go first (wl_surface.error.defunct_role_object). wlroots 0.15 lets
// it happen and leaves the role object inert with no data, and several of its xdg_toplevel requests (set_title, ...)
// then dereference that null: one out-of-order destroy and one more request crash the compositor.
#pragma once

#include "compositor/wlr.hpp"

namespace kiln::compositor {

class DefunctRoleGuard {
public:
    explicit DefunctRoleGuard(wl_display* display);
    ~DefunctRoleGuard();
    DefunctRoleGuard(const DefunctRoleGuard&) = delete;
    DefunctRoleGuard& operator=(const DefunctRoleGuard&) = delete;

private:
    static void on_message(void* data, wl_protocol_logger_type direction,
                           const wl_protocol_logger_message* message) noexcept;

    wl_protocol_logger* logger_ = nullptr;
};

}  // namespace kiln::compositor
