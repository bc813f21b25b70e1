// ForeignToplevels: wlr-foreign-toplevel-management, the list of windows that taskbars and docks show (waybar,
// sfwbar): one handle per mapped window, xdg or X11, with its title, app_id, whether it has focus and whether it is
// maximized, fullscreen or minimized; a taskbar may ask to focus, close, maximize, fullscreen or minimize it.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <memory>

namespace kiln::compositor {

struct Core;
class Desktop;
class SeatFocus;
class Toplevels;

class ForeignToplevels {
public:
    // Taskbars activate windows through `desktop`, and see the seat's keyboard focus.
    ForeignToplevels(const Core& core, Toplevels& toplevels, Desktop& desktop, SeatFocus& seat);
    ~ForeignToplevels();
    ForeignToplevels(const ForeignToplevels&) = delete;
    ForeignToplevels& operator=(const ForeignToplevels&) = delete;

    // The manager's global, privileged (it lists every window and can close any).
    const wl_global* global() const { return manager_->global; }

private:
    class Handle;
    // A handle is found by its Toplevel.
    struct HandleKey {
        const void* operator()(const std::unique_ptr<Handle>& handle) const;
    };

    const Core& core_;
    Desktop& desktop_;
    SeatFocus& seat_;
    wlr_foreign_toplevel_manager_v1* manager_;
    IndexedList<std::unique_ptr<Handle>, HandleKey> handles_;
    wl::Listener add_;
    wl::Listener remove_;
    wl::Listener focus_change_;
};

}  // namespace kiln::compositor
