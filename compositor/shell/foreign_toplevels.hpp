// ForeignToplevels: wlr-foreign-toplevel-management, the list of windows that taskbars and docks show (waybar,
// sfwbar): one handle per mapped toplevel with its title, app_id, whether it has focus and whether it is maximized,
// fullscreen or minimized; a taskbar may ask to focus, close, maximize, fullscreen or minimize it.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <list>
#include <memory>

namespace kiln::compositor {

class Server;

class ForeignToplevels {
public:
    ForeignToplevels(wl_display* display, wlr_xdg_shell* shell, Server& server);
    ~ForeignToplevels();
    ForeignToplevels(const ForeignToplevels&) = delete;
    ForeignToplevels& operator=(const ForeignToplevels&) = delete;

private:
    class Toplevel;

    Server& server_;
    wlr_foreign_toplevel_manager_v1* manager_;
    std::list<std::unique_ptr<Toplevel>> toplevels_;
    wl::Listener new_surface_;
    wl::Listener focus_change_;
};

}  // namespace kiln::compositor
