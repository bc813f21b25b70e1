// Toplevel: a window kiln manages, whichever protocol drew it (an xdg toplevel's View, a managed X11 window's
// XwaylandView), as focus, key bindings, interactive move and resize and taskbars see it, with the window state
// both kinds share (maximized, fullscreen, minimized, focused; the geometry to go back to; a resize's anchor; kiln's
// decoration).
#pragma once

#include "compositor/shell/placement.hpp"
#include "compositor/shell/server_decoration.hpp"
#include "compositor/wlr.hpp"

#include <memory>
#include <optional>

namespace kiln::compositor {

class Toplevels;

class Toplevel {
public:
    // `toplevels` hears when the window is minimized (focus passes on).
    explicit Toplevel(Toplevels& toplevels) : toplevels_(toplevels)
    {
        wl_signal_init(&events.map);
        wl_signal_init(&events.unmap);
        wl_signal_init(&events.title);
        wl_signal_init(&events.state);
    }
    virtual ~Toplevel();
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

    bool maximized() const { return maximized_; }
    bool fullscreen() const { return fullscreen_; }
    bool minimized() const { return minimized_; }
    virtual void set_maximized(bool maximized) = 0;
    // On `output`, or (null) the one the window is on.
    virtual void set_fullscreen(bool fullscreen, wlr_output* output) = 0;
    // Hidden until focused again: not drawn, not activated, and focus goes back to the window focused before it.
    void set_minimized(bool minimized);
    // Its workspace is not the one shown on its output (Workspaces): hidden as a minimized window is, and suspended,
    // with its state kept for when that workspace is shown again.
    bool off_workspace() const { return off_workspace_; }
    void set_off_workspace(bool off);
    // kiln draws a border and title bar around it: a size asked of it leaves room for them.
    bool decorated() const { return decoration_ != nullptr; }
    // The part of kiln's decoration (title bar, border, close box) under a layout point; none where kiln draws
    // none around this window.
    ServerDecoration::Part decoration_at(double lx, double ly) const;
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

protected:
    // The protocol's and the scene's part of (un)minimizing, and of a workspace hidden or shown: the window's node
    // hidden or shown again, and the program told where its protocol has a word for it.
    virtual void show_minimized(bool minimized) = 0;
    // Remembers where the window is, to go back there when it is neither maximized nor fullscreen again; while it is
    // already one of them, what it remembers stays. An unmapped window has nowhere to go back to.
    void save_geometry();
    // The geometry remembered by save_geometry(), once (it is forgotten); none when there was none.
    std::optional<wlr_box> take_saved_geometry();
    // An interactive resize from `edges` begins (0: it ends): the window's geometry now is what it is anchored to.
    void anchor_resize(uint32_t edges);
    // Where a window of width × height goes during an interactive resize: the edges opposite the dragged ones stay
    // where they were when the resize began (elsewhere, where it is).
    wlr_box anchored(int width, int height) const;
    // The output under the middle of the window, or the layout's centre one.
    wlr_output* output_in(wlr_output_layout* layout) const;
    // Fits kiln's decoration, if the window has one, around a window of width × height, in the focused or
    // unfocused colours, hidden while fullscreen.
    void update_decoration_frame(int width, int height, const char* title,
                                 std::shared_ptr<const TitleIcon> icon = nullptr);
    // A size within the window's own minimum and maximum (a maximum of 0 or less is none), at least 1: xdg's are
    // unsigned (wlroots refuses negative ones), X's -1 where a hint gives none.
    template <typename T>
    static int within(int size, T min, T max)
    {
        return placement::size_within(size, static_cast<int>(min), static_cast<int>(max));
    }

    bool maximized_ = false;
    bool fullscreen_ = false;
    bool minimized_ = false;
    bool off_workspace_ = false;
    bool activated_ = false;
    uint32_t resize_edges_ = 0;  // while an interactive resize lasts
    std::unique_ptr<ServerDecoration> decoration_;  // while kiln decorates the window

private:
    friend class Toplevels;  // sets it, and moves focus as it changes
    bool modal_ = false;
    Toplevels& toplevels_;
    wlr_box saved_{};  // geometry before maximize or fullscreen; width 0 when none
    wlr_box resize_start_{};
};

}  // namespace kiln::compositor
