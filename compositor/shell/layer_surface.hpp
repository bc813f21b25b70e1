// LayerSurface: one zwlr_layer_surface_v1 in the scene: its tree in its layer, its popups, and its checks.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/region.hpp"
#include "compositor/shell/xdg/xdg_popup.hpp"
#include "compositor/wlr.hpp"

#include <list>
#include <memory>

namespace kiln::compositor {

class LayerShell;

class LayerSurface {
public:
    LayerSurface(LayerShell& shell, wlr_layer_surface_v1* surface);
    ~LayerSurface();
    LayerSurface(const LayerSurface&) = delete;
    LayerSurface& operator=(const LayerSurface&) = delete;

    wlr_layer_surface_v1* wlr() const { return surface_; }
    wlr_surface* surface() const { return surface_->surface; }
    wlr_output* output() const { return surface_->output; }
    bool mapped() const { return surface_->mapped; }
    // What it asked for in its last commit.
    const wlr_layer_surface_v1_state& state() const { return surface_->current; }
    // Puts it at layout (x, y) and tells it its size (a configure, when the size is new or none was sent yet).
    void place(int x, int y, uint32_t width, uint32_t height);
    // Ends it: the client gets closed, and kiln forgets it.
    void close();
    // Its output went: it belongs to `output` now, and its next placement there answers with a configure (the
    // client learns the new output's size even where it is the same).
    void move_to(wlr_output* output);
    // Marked to be closed shortly (it no longer fits its output): no longer placed.
    bool closing() const { return closing_; }
    void set_closing() { closing_ = true; }

private:
    // A zero width (height) is only allowed when it is anchored to both left and right (top and bottom).
    bool size_valid();
    void committed();
    void add_popup(xdg::Popup* popup);
    void dismiss_popups();

    LayerShell& shell_;
    wlr_layer_surface_v1* surface_;
    wlr_scene_tree* tree_;     // in its layer's tree
    wlr_scene_tree* popups_;   // in the layer-popups tree, at the same position
    uint32_t layer_;
    bool configured_ = false;  // a configure was sent
    bool configure_pending_ = false;  // it committed new wishes: the next placement answers with a configure
    uint32_t width_ = 0;       // the last configured size
    uint32_t height_ = 0;
    int x_ = 0;
    int y_ = 0;
    bool closing_ = false;
    Region opaque_;  // as of its last commit: a change may hide windows or show them (LayerShell::coverage_changed)
    // Its popups, dismissed when it goes (they are placed against it).
    struct ChildPopup {
        xdg::Popup* popup;
        wl::Listener destroy;
    };
    IndexedList<std::unique_ptr<ChildPopup>> children_;

    wl::Listener map_;
    wl::Listener unmap_;
    wl::Listener destroy_;
    wl::Listener commit_;
    wl::Listener new_popup_;
};

}  // namespace kiln::compositor
