// View: one xdg toplevel window in the scene, with its position, focus and fullscreen state.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class Server;

class View {
public:
    View(Server& server, wlr_xdg_surface* surface);
    View(const View&) = delete;
    View& operator=(const View&) = delete;

    wlr_xdg_surface* xdg() const { return xdg_; }
    wlr_surface* surface() const { return xdg_->surface; }
    wlr_scene_node* node() const { return node_; }
    bool mapped() const { return mapped_; }
    int x() const { return x_; }
    int y() const { return y_; }
    void move_to(int x, int y);
    void set_activated(bool activated);
    // Asks the client to close the window (xdg_toplevel.close); the client decides, nothing is killed.
    void close();
    // Key bindings: fullscreen on the window's output and back; maximized to its output and back.
    void toggle_fullscreen();
    void toggle_maximized();

private:
    void map();
    void set_fullscreen(bool fullscreen);

    Server& server_;
    wlr_xdg_surface* xdg_;
    wlr_scene_node* node_;
    int x_ = 0;
    int y_ = 0;
    bool mapped_ = false;
    bool placed_ = false;
    bool fullscreen_ = false;
    bool maximized_ = false;
    int restore_x_ = 0;  // where toggle_maximized() puts the window back
    int restore_y_ = 0;

    wl::Listener map_;
    wl::Listener unmap_;
    wl::Listener destroy_;
    wl::Listener request_move_;
    wl::Listener request_fullscreen_;
    wl::Listener request_maximize_;
};

}  // namespace kiln::compositor
