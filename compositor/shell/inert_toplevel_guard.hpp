// InertToplevelGuard: keeps requests on an inert xdg_toplevel (its wl_surface already destroyed) away from wlroots
// 0.15, which dereferences NULL in every xdg_toplevel request handler but destroy once the toplevel is inert.
#pragma once

#include "compositor/wlr.hpp"

namespace kiln::compositor {

class InertToplevelGuard {
public:
    // Watches every request on `display`; must be destroyed before the display.
    explicit InertToplevelGuard(wl_display* display);
    ~InertToplevelGuard();
    InertToplevelGuard(const InertToplevelGuard&) = delete;
    InertToplevelGuard& operator=(const InertToplevelGuard&) = delete;

private:
    wl_protocol_logger* logger_ = nullptr;
};

}  // namespace kiln::compositor
