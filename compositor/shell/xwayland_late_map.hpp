// XwaylandLateMap: maps an X window whose wl_surface had its buffer before wlroots 0.15 paired the two.
//
// Xwayland names a window's wl_surface in an X message (WL_SURFACE_ID) and commits its first buffer over Wayland; the
// two arrive on different sockets, in either order. wlroots 0.15 maps an X window on a commit of its paired surface,
// so a surface whose buffer came first is mapped only at its next commit, and Xwayland sends none for a window that
// does not draw again (it also waits for a frame callback kiln sends only to windows it shows): the window never
// shows (about 1 in 25 override-redirect windows in xwayland_windows.py). Later wlroots map on pairing; this does
// the same for 0.15: it watches Xwayland's surfaces that get a buffer while unpaired, and once one is paired to a
// window that is still unmapped, maps it as wlroots' own commit handler would.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <list>
#include <memory>

namespace kiln::compositor {

class XwaylandLateMap {
public:
    XwaylandLateMap(wl_display* display, wlr_compositor* compositor, wlr_xwayland* xwayland);
    ~XwaylandLateMap();
    XwaylandLateMap(const XwaylandLateMap&) = delete;
    XwaylandLateMap& operator=(const XwaylandLateMap&) = delete;

private:
    struct Watched;
    void arm();
    void check();

    wlr_xwayland* xwayland_;
    wl_event_source* timer_ = nullptr;
    int idle_checks_ = 0;  // checks in a row that found every watched surface still unpaired
    IndexedList<std::unique_ptr<Watched>> watched_;
    wl::Listener new_surface_;
};

}  // namespace kiln::compositor
