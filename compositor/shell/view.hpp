// View: one xdg toplevel window in the scene: where it is, and its maximized, fullscreen and minimized state and
// kiln's decoration (kept by Toplevel, as for X11 windows) told to its client through xdg-shell.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/region.hpp"
#include "compositor/shell/placement.hpp"
#include "compositor/shell/server_decoration.hpp"
#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/xdg/xdg_surface.hpp"
#include "compositor/wlr.hpp"

#include <memory>

namespace kiln::compositor {

class XdgShell;

class View final : public Toplevel {
public:
    View(XdgShell& shell, xdg::Surface* surface);
    ~View() override;

    // The View of a toplevel xdg_surface, if kiln made one.
    static View* from(xdg::Surface* xdg);
    // The View of a wl_surface that is an xdg toplevel's.
    static View* from(wlr_surface* surface) { return from(xdg::Surface::from(surface)); }

    xdg::Surface* xdg() const { return xdg_; }
    wlr_surface* surface() const override { return xdg_->surface(); }
    wlr_scene_node* node() const override { return node_; }
    bool mapped() const override { return mapped_; }
    // The window geometry's top-left corner in the layout (the scene node's origin) and its size.
    int x() const { return x_; }
    int y() const { return y_; }
    wlr_box geometry() const override;
    // The output most of the window is on (its centre's), or the layout's centre one.
    wlr_output* output() const override;
    Toplevel* parent() const override;
    const char* title() const override { return xdg_->toplevel()->title(); }
    const char* app_id() const override { return xdg_->toplevel()->app_id(); }

    void move_to(int x, int y) override;
    void begin_resize(uint32_t edges) override;
    void end_resize() override;
    // Asks the client for a size, within its min/max size.
    void request_size(int width, int height) override;
    void raise() override;
    // Activated, it is pinged too: a window given focus should answer, one that does not within the shell's timeout
    // is marked unresponsive.
    void set_activated(bool activated) override;
    // xdg_toplevel.close: the client decides, nothing is killed.
    void close() override;

    void set_maximized(bool maximized) override;
    void set_fullscreen(bool fullscreen, wlr_output* output) override;
    // Sends the current state's size and place again (the usable area a maximized window fills changed).
    void refit() { apply_state(); }
    // xdg_toplevel's suspended state (XdgShell decides it from what of the window shows).
    void set_suspended(bool suspended) { xdg_->toplevel()->set_suspended(suspended); }
    // Tells the client the largest size that fits its output's usable area (xdg_toplevel.configure_bounds).
    void update_bounds();

    // kiln draws this window's border and title bar (its client agreed to server-side decorations), or not.
    void set_server_decorated(bool decorated);
    // The window's icon (xdg-toplevel-icon; null: none), shown on kiln's title bar when it draws one.
    void set_icon(std::shared_ptr<const TitleIcon> icon);
    const TitleIcon* icon() const { return icon_.get(); }

private:
    void show_minimized(bool minimized) override;
    void initial_commit();
    void commit();
    void map();
    void place();
    // Sends the maximized / fullscreen state with its size and moves the window where that state puts it.
    void apply_state();
    // Where a fullscreen window (its output) or a maximized one (its output's usable area) goes.
    wlr_box state_box() const;
    // The area the window geometry may fill on `output`: its usable area less kiln's decoration, if any.
    placement::Box area(wlr_output* output) const;
    void update_decoration();
    // Whether this commit changed what the window hides (its geometry or opaque region) since the last one that did.
    bool cover_changed();

    XdgShell& shell_;
    xdg::Surface* xdg_;
    wlr_scene_node* node_;
    int x_ = 0;
    int y_ = 0;
    bool mapped_ = false;
    bool placed_ = false;
    bool configured_ = false;  // the initial configure carried the states asked for before it
    bool refit_ = false;  // mapped larger than the area: placed again once it takes the fitting size
    bool unresponsive_ = false;
    wlr_output* fullscreen_output_ = nullptr;
    std::shared_ptr<const TitleIcon> icon_;
    wlr_box covered_geometry_{};  // as of the last commit that changed it (cover_changed)
    Region covered_opaque_;

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
    wl::Listener fullscreen_output_destroy_;
    wl::Listener set_title_;
    wl::Listener set_app_id_;
};

}  // namespace kiln::compositor
