// Toplevel: a window kiln manages, whichever protocol drew it (an xdg toplevel's View, a managed X11 window's
// XwaylandView), as focus, key bindings, interactive move and resize and taskbars see it.
#pragma once

#include "compositor/shell/server_decoration.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class Toplevel {
public:
    Toplevel()
    {
        wl_signal_init(&events.map);
        wl_signal_init(&events.unmap);
        wl_signal_init(&events.title);
        wl_signal_init(&events.state);
    }
    virtual ~Toplevel() = default;
    Toplevel(const Toplevel&) = delete;
    Toplevel& operator=(const Toplevel&) = delete;

    virtual wlr_surface* surface() const = 0;
    // The window's scene tree; its `data` is this Toplevel, so a scene hit finds the window it is in.
    virtual wlr_scene_node* node() const = 0;
    // Shown as a window kiln manages (an override-redirect X11 menu never is).
    virtual bool mapped() const = 0;
    // The window's place and size in the layout.
    virtual wlr_box geometry() const = 0;
    // The output most of the window is on.
    virtual wlr_output* output() const = 0;
    // The window a dialog belongs to, if kiln manages it.
    virtual Toplevel* parent() const = 0;
    // Null when it has none.
    virtual const char* title() const = 0;
    virtual const char* app_id() const = 0;

    virtual void move_to(int x, int y) = 0;
    // An interactive resize from `edges` (wlr_edges) began or ended; while it lasts, the edges opposite stay put.
    virtual void begin_resize(uint32_t edges) = 0;
    virtual void end_resize() = 0;
    // Asks for a size, within the window's own minimum and maximum.
    virtual void request_size(int width, int height) = 0;
    // To the top of its layer.
    virtual void raise() = 0;
    virtual void set_activated(bool activated) = 0;
    // Asks the program to close the window (xdg_toplevel.close, WM_DELETE_WINDOW); nothing is killed.
    virtual void close() = 0;

    virtual bool maximized() const = 0;
    virtual bool fullscreen() const = 0;
    virtual bool minimized() const = 0;
    virtual void set_maximized(bool maximized) = 0;
    // On `output`, or (null) the one the window is on.
    virtual void set_fullscreen(bool fullscreen, wlr_output* output) = 0;
    // Hidden until focused again.
    virtual void set_minimized(bool minimized) = 0;
    // The part of kiln's decoration (title bar, border, close box) under a layout point; none where kiln draws
    // none around this window.
    virtual ServerDecoration::Part decoration_at(double lx, double ly) const = 0;
    // A modal dialog (xdg-dialog-v1): while it is shown its parent does not take keyboard focus (Toplevels).
    bool modal() const { return modal_; }
    void toggle_fullscreen() { set_fullscreen(!fullscreen(), nullptr); }
    void toggle_maximized() { set_maximized(!maximized()); }

    // What a taskbar follows; each carries this Toplevel.
    struct {
        wl_signal map;    // mapped() turned true
        wl_signal unmap;  // and false
        wl_signal title;  // title or app_id changed
        wl_signal state;  // maximized, fullscreen or minimized changed
    } events;

private:
    friend class Toplevels;  // sets it, and moves focus as it changes
    bool modal_ = false;
};

}  // namespace kiln::compositor
