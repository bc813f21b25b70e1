// Xwayland: the X11 server wlroots runs for kiln (on the first X11 connection, or at start-up) and its windows.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/shell/xwayland_late_map.hpp"
#include "compositor/wlr.hpp"

#include <list>
#include <memory>
#include <string>
#include <vector>

namespace kiln::compositor {

struct Core;
class Desktop;
class SeatFocus;
class Toplevels;
class XwaylandView;

class Xwayland {
public:
    // Opens an X display (sockets :N and a lock file) and, unless `lazy`, starts Xwayland now. nullptr (with
    // `error`) when wlroots cannot.
    static std::unique_ptr<Xwayland> create(const Core& core, Desktop& desktop, SeatFocus& seat, Toplevels& toplevels,
                                            wlr_compositor* compositor, bool lazy, std::string& error);
    ~Xwayland();
    Xwayland(const Xwayland&) = delete;
    Xwayland& operator=(const Xwayland&) = delete;

    // DISPLAY for X11 clients, e.g. ":1".
    std::string display_name() const;
    // Whether the window lists WM_DELETE_WINDOW in its WM_PROTOCOLS: closing it asks the program then (wlroots
    // kills the program of any other window).
    bool accepts_close(const wlr_xwayland_surface& xsurface) const;
    // Whether the window's _NET_WM_WINDOW_TYPE is one window managers draw no frame around: the desktop, a dock, a
    // splash screen, a notification, or a menu, tooltip, combo box list or drag icon mapped as a managed window.
    bool frameless_type(const wlr_xwayland_surface& xsurface) const;
    // Keeps override-redirect windows (menus, tooltips) above every toplevel after one was raised.
    void raise_unmanaged();
    wlr_scene_node* unmanaged_layer() const { return &unmanaged_->node; }
    void remove_view(XwaylandView* view);

    // What its windows share.
    const Core& core() const { return core_; }
    Desktop& desktop() const { return desktop_; }
    SeatFocus& seat() const { return seat_; }
    Toplevels& toplevels() const { return toplevels_; }

private:
    Xwayland(const Core& core, Desktop& desktop, SeatFocus& seat, Toplevels& toplevels, wlr_compositor* compositor,
             wlr_xwayland* xwayland);
    void ready();

    const Core& core_;
    Desktop& desktop_;
    SeatFocus& seat_;
    Toplevels& toplevels_;
    wlr_xwayland* xwayland_;
    wlr_scene_tree* unmanaged_;  // override-redirect windows, kept on top
    wlr_xcursor_manager* xcursor_ = nullptr;  // the cursor X shows over its own windows' backgrounds
    xcb_atom_t delete_window_ = XCB_ATOM_NONE;  // WM_DELETE_WINDOW on the running X server
    std::vector<xcb_atom_t> frameless_types_;    // the window types frameless_type() looks for, on that server
    IndexedList<std::unique_ptr<XwaylandView>> views_;
    XwaylandLateMap late_map_;

    wl::Listener ready_;
    wl::Listener new_surface_;
};

}  // namespace kiln::compositor
