// View: one xdg toplevel window in the scene: where it is, whether it is maximized, fullscreen or minimized, and
// kiln's decoration around it when it has one.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/shell/placement.hpp"
#include "compositor/shell/server_decoration.hpp"
#include "compositor/wlr.hpp"

#include <memory>

namespace kiln::compositor {

class Server;
class XdgShell;

class View {
public:
    View(Server& server, XdgShell& shell, wlr_xdg_surface* surface);
    ~View();
    View(const View&) = delete;
    View& operator=(const View&) = delete;

    // The View of a toplevel xdg_surface, if kiln made one.
    static View* from(wlr_xdg_surface* xdg);

    wlr_xdg_surface* xdg() const { return xdg_; }
    wlr_surface* surface() const { return xdg_->surface; }
    wlr_scene_node* node() const { return node_; }
    bool mapped() const { return mapped_; }
    // The window geometry's top-left corner in the layout (the scene node's origin) and its size.
    int x() const { return x_; }
    int y() const { return y_; }
    wlr_box geometry() const;
    void move_to(int x, int y);
    void set_activated(bool activated);
    // Asks the client to close the window (xdg_toplevel.close); the client decides, nothing is killed.
    void close();
    // Key bindings: fullscreen on the window's output and back; maximized to its output and back.
    void toggle_fullscreen();
    void toggle_maximized();

    bool maximized() const { return maximized_; }
    bool fullscreen() const { return fullscreen_; }
    bool minimized() const { return minimized_; }
    void set_maximized(bool maximized);
    // Sends the current state's size and place again (the usable area a maximized window fills changed).
    void refit() { apply_state(); }
    // On `output`, or (null) the one the window is on.
    void set_fullscreen(bool fullscreen, wlr_output* output);
    // Hidden until activated again (Server::focus shows it).
    void set_minimized(bool minimized);
    // The output most of the window is on (its centre's), or the layout's centre one.
    wlr_output* output() const;

    // An interactive resize from `edges` (wlr_edges) began or ended; while it lasts, the edges opposite stay put.
    void begin_resize(uint32_t edges);
    void end_resize();
    // Asks the client for a size, within its min/max size; returns what was asked.
    void request_size(int width, int height);

    // kiln draws this window's border and title bar (its client agreed to server-side decorations), or not.
    void set_server_decorated(bool decorated);
    // The part of kiln's decoration under a layout point; none where kiln draws none.
    ServerDecoration::Part decoration_at(double lx, double ly) const;

private:
    void initial_commit();
    void commit();
    void map();
    void place();
    // The geometry the window goes back to when it is neither maximized nor fullscreen.
    void save_geometry();
    // Sends the maximized / fullscreen state with its size and moves the window where that state puts it.
    void apply_state();
    // Where a fullscreen window (its output) or a maximized one (its output's usable area) goes.
    wlr_box state_box() const;
    // The area the window geometry may fill on `output`: its usable area less kiln's decoration, if any.
    placement::Box area(wlr_output* output) const;
    void update_decoration();

    Server& server_;
    XdgShell& shell_;
    wlr_xdg_surface* xdg_;
    wlr_scene_node* node_;
    int x_ = 0;
    int y_ = 0;
    bool mapped_ = false;
    bool placed_ = false;
    bool configured_ = false;  // the initial configure carried the states asked for before it
    bool maximized_ = false;
    bool fullscreen_ = false;
    bool minimized_ = false;
    bool refit_ = false;  // mapped larger than the area: placed again once it takes the fitting size
    bool unresponsive_ = false;
    wlr_output* fullscreen_output_ = nullptr;
    wlr_box saved_{};  // geometry before maximize or fullscreen; width 0 when none
    uint32_t resize_edges_ = 0;
    wlr_box resize_start_{};
    bool activated_ = false;
    std::unique_ptr<ServerDecoration> decoration_;  // while kiln decorates the window

    wl::Listener commit_;
    wl::Listener map_;
    wl::Listener unmap_;
    wl::Listener destroy_;
    wl::Listener ping_timeout_;
    wl::Listener request_move_;
    wl::Listener request_resize_;
    wl::Listener request_fullscreen_;
    wl::Listener request_maximize_;
    wl::Listener request_minimize_;
    wl::Listener set_title_;
    wl::Listener fullscreen_output_destroy_;
};

}  // namespace kiln::compositor
