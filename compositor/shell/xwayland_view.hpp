// XwaylandView: one X11 window from Xwayland in the scene, managed (a toplevel) or override-redirect (menus,
// tooltips), placed where X asks.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class Server;
class Xwayland;

class XwaylandView {
public:
    XwaylandView(Server& server, Xwayland& owner, wlr_xwayland_surface* surface);
    ~XwaylandView();
    XwaylandView(const XwaylandView&) = delete;
    XwaylandView& operator=(const XwaylandView&) = delete;

    wlr_xwayland_surface* xwayland() const { return xsurface_; }
    bool mapped() const { return node_ != nullptr; }
    // Override-redirect windows (menus, tooltips, drag icons) are X's own: never focused, never moved by kiln.
    bool managed() const { return !xsurface_->override_redirect; }
    // Raises the window and gives it keyboard focus (managed windows only).
    void focus();
    void set_activated(bool activated);

private:
    void map();
    void unmap();
    void configure_request(const wlr_xwayland_surface_configure_event& event);
    void set_fullscreen(bool fullscreen);
    // Where the window is and what is above it follow the X window's geometry.
    void follow_geometry();
    // _NET_WM_MOVERESIZE move: the window follows the cursor until the button is released.
    void begin_move();
    void end_move();
    void move_to(int x, int y);

    Server& server_;
    Xwayland& owner_;
    wlr_xwayland_surface* xsurface_;
    wlr_scene_node* node_ = nullptr;  // the surface and its subsurfaces while mapped
    wlr_box saved_{};                 // where the window was before it went fullscreen
    bool was_fullscreen_ = false;
    double grab_x_ = 0;  // the cursor's offset from the window's corner while moving
    double grab_y_ = 0;

    wl::Listener destroy_;
    wl::Listener map_;
    wl::Listener unmap_;
    wl::Listener request_configure_;
    wl::Listener request_fullscreen_;
    wl::Listener request_activate_;
    wl::Listener set_geometry_;
    wl::Listener request_move_;
    wl::Listener set_override_redirect_;
    // While moving: the cursor's motion (after the seat has moved it) and its button release.
    wl::Listener grab_motion_;
    wl::Listener grab_motion_absolute_;
    wl::Listener grab_button_;
};

}  // namespace kiln::compositor
