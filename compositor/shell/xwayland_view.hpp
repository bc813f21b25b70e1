// XwaylandView: one X11 window from Xwayland in the scene, managed (a toplevel like any other) or override-redirect
// (menus, tooltips), placed where X asks. kiln draws a managed window's title bar and border, as an X window manager
// does, unless its _MOTIF_WM_HINTS ask for none (programs that draw their own, as GTK's and Chromium's do).
#pragma once

#include "compositor/listener.hpp"
#include "compositor/shell/toplevel.hpp"
#include "compositor/wlr.hpp"

#include <memory>

namespace kiln::compositor {

class Xwayland;

class XwaylandView final : public Toplevel {
public:
    XwaylandView(Xwayland& owner, wlr_xwayland_surface* surface);
    ~XwaylandView() override;

    // Override-redirect windows (menus, tooltips, drag icons) are X's own: never focused, never moved by kiln.
    bool managed() const { return !xsurface_->override_redirect; }

    wlr_surface* surface() const override { return xsurface_->surface; }
    wlr_scene_node* node() const override { return node_; }
    bool mapped() const override { return node_ && managed(); }
    wlr_box geometry() const override { return {xsurface_->x, xsurface_->y, xsurface_->width, xsurface_->height}; }
    wlr_output* output() const override;
    Toplevel* parent() const override;
    const char* title() const override { return xsurface_->title; }
    // X11's WM_CLASS class names the program, as an app_id does (sway does the same).
    const char* app_id() const override { return xsurface_->class_; }

    void move_to(int x, int y) override;
    void begin_resize(uint32_t edges) override;
    void end_resize() override { anchor_resize(0); }
    // Within the window's WM_NORMAL_HINTS minimum and maximum size.
    void request_size(int width, int height) override;
    // X's own stacking order follows, so X clients see (and hit-test) the same order kiln draws.
    void raise() override;
    void set_activated(bool activated) override;
    // WM_DELETE_WINDOW, for a window that lists it in WM_PROTOCOLS; any other is left open (wlroots would kill its
    // client).
    void close() override;

    void set_maximized(bool maximized) override;
    void set_fullscreen(bool fullscreen, wlr_output* output) override;

private:
    // X is told too (WM_STATE iconic), so pagers and the program itself know.
    void show_minimized(bool minimized) override;
    void map();
    void unmap();
    // A managed window came to be shown (mapped, or turned managed while mapped), or stopped being shown.
    void shown();
    void hidden();
    void configure_request(const wlr_xwayland_surface_configure_event& event);
    // Where the window is and what is above it follow the X window's geometry.
    void follow_geometry();
    // Tells X the window's new place and size, and shows it there.
    void configure(const wlr_box& box);
    // The place and size of its state: its output (fullscreen, on `output` if given), the output's usable area
    // (maximized), or back where it was.
    void apply_state(wlr_output* output);
    // Whether kiln decorates the window: shown, managed, of a type that has frames, and its Motif hints leave
    // decorations on.
    bool decorated() const;
    // Makes or drops the decoration and fits it to the window's size, focus, title and state.
    void update_decoration();
    // The decorated window's title bar and left border go inside the usable area of its output: a window mapped at
    // 0,0 (most X programs' default) would have them off screen.
    void keep_decoration_visible();

    Xwayland& owner_;
    wlr_xwayland_surface* xsurface_;
    wlr_scene_node* node_ = nullptr;  // while mapped: a tree of the surface, its subsurfaces and the decoration

    wl::Listener destroy_;
    wl::Listener map_;
    wl::Listener unmap_;
    wl::Listener request_configure_;
    wl::Listener request_fullscreen_;
    wl::Listener request_maximize_;
    wl::Listener request_activate_;
    wl::Listener request_move_;
    wl::Listener request_resize_;
    wl::Listener set_geometry_;
    wl::Listener set_title_;
    wl::Listener set_class_;
    wl::Listener set_override_redirect_;
    wl::Listener set_decorations_;
    wl::Listener set_window_type_;
};

}  // namespace kiln::compositor
