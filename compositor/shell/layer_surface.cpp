// LayerSurface: scene trees, map and unmap, the size check wlroots 0.15 leaves out, popups kept on the output.
#include "compositor/shell/layer_surface.hpp"

#include "compositor/core.hpp"
#include "compositor/shell/layer_popup_request.hpp"
#include "compositor/shell/layer_shell.hpp"
#include "compositor/shell/xdg/xdg_scene.hpp"
#include "compositor/shell/xdg_popup.hpp"

#include <cstdlib>

namespace kiln::compositor {

LayerSurface::LayerSurface(LayerShell& shell, wlr_layer_surface_v1* surface)
    : shell_(shell),
      surface_(surface),
      tree_(wlr_scene_tree_create(&shell.tree_for(surface->current.layer)->node)),
      popups_(wlr_scene_tree_create(&shell.layers().layer_popups->node)),
      layer_(surface->current.layer)
{
    wlr_scene_subsurface_tree_create(&tree_->node, surface->surface);
    // Shown from its map on: a surface committed before its configure is wlroots' protocol error, not a frame.
    wlr_scene_node_set_enabled(&tree_->node, false);
    wlr_scene_node_set_enabled(&popups_->node, false);

    map_.connect(&surface->events.map, [this](void*) {
        wlr_scene_node_set_enabled(&tree_->node, true);
        wlr_scene_node_set_enabled(&popups_->node, true);
        shell_.mapped(*this);
    });
    unmap_.connect(&surface->events.unmap, [this](void*) {
        wlr_scene_node_set_enabled(&tree_->node, false);
        wlr_scene_node_set_enabled(&popups_->node, false);
        shell_.unmapped(*this);
    });
    destroy_.connect(&surface->events.destroy, [this](void*) {
        // wlroots 0.15 clears these only when a mapped surface unmaps: for one destroyed unmapped, its
        // unacknowledged configures would leak. Its popups (kiln's) are dismissed.
        dismiss_popups();
        struct wlr_layer_surface_v1_configure* configure = nullptr;
        struct wlr_layer_surface_v1_configure* next_configure = nullptr;
        wl_list_for_each_safe(configure, next_configure, &surface_->configure_list, link)
        {
            wl_list_remove(&configure->link);
            std::free(configure);
        }
        shell_.remove(this);
    });
    commit_.connect(&surface->surface->events.commit, [this](void*) { committed(); });
    new_popup_.connect(&surface->events.new_popup,
                       [this](void* data) { add_popup(static_cast<xdg::Popup*>(data)); });
    take_over_get_popup(surface);
    // When its output goes, LayerShell moves it to one that is left (LayerShell::watch_output).
}

LayerSurface::~LayerSurface()
{
    // Its popups' scene trees go with popups_.
    dismiss_popups();
    wlr_scene_node_destroy(&popups_->node);
    wlr_scene_node_destroy(&tree_->node);
}

void LayerSurface::close()
{
    // wlroots sends closed and destroys the object, whose destroy signal removes this LayerSurface.
    wlr_layer_surface_v1_destroy(surface_);
}

void LayerSurface::move_to(wlr_output* output)
{
    surface_->output = output;
    configure_pending_ = true;
}

bool LayerSurface::size_valid()
{
    const wlr_layer_surface_v1_state& s = surface_->current;
    const uint32_t horizontal = ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT | ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT;
    const uint32_t vertical = ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM;
    if (s.desired_width == 0 && (s.anchor & horizontal) != horizontal) {
        wl_resource_post_error(surface_->resource, ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SIZE,
                               "width 0 needs anchors on both the left and the right edge");
        return false;
    }
    if (s.desired_height == 0 && (s.anchor & vertical) != vertical) {
        wl_resource_post_error(surface_->resource, ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SIZE,
                               "height 0 needs anchors on both the top and the bottom edge");
        return false;
    }
    return true;
}

void LayerSurface::committed()
{
    if (!pixman_region32_equal(&surface_->surface->opaque_region, opaque_.get())) {
        pixman_region32_copy(opaque_.get(), &surface_->surface->opaque_region);
        shell_.coverage_changed();
    }
    if (!surface_->output)
        return;
    const bool changed = surface_->current.committed != 0;
    if ((changed || !configured_) && !size_valid())
        return;
    if (surface_->current.layer != layer_) {
        layer_ = surface_->current.layer;
        wlr_scene_node_reparent(&tree_->node, &shell_.tree_for(layer_)->node);
    }
    // The first commit asks for a configure; later ones only when what it asked for changed.
    if (!configured_ || changed) {
        configure_pending_ = true;
        shell_.arrange(surface_->output);
        shell_.update_keyboard();  // its keyboard interactivity may have changed
    }
}

void LayerSurface::place(int x, int y, uint32_t width, uint32_t height)
{
    x_ = x;
    y_ = y;
    wlr_scene_node_set_position(&tree_->node, x, y);
    wlr_scene_node_set_position(&popups_->node, x, y);
    if (configure_pending_ || !configured_ || width != width_ || height != height_) {
        wlr_layer_surface_v1_configure(surface_, width, height);
        configured_ = true;
        configure_pending_ = false;
        width_ = width;
        height_ = height;
    }
}

void LayerSurface::dismiss_popups()
{
    auto children = std::move(children_);
    for (const auto& child : children)
        child->popup->dismiss();
}

void LayerSurface::add_popup(xdg::Popup* popup)
{
    auto& child = children_.emplace_back(std::make_unique<ChildPopup>());
    child->popup = popup;
    child->destroy.connect(&popup->events.destroy, [this, raw = child.get()](void*) {
        children_.erase(raw);
    });
    popup->base().data = xdg::create_scene_tree(&popups_->node, popup->base());  // its own popups nest in it
    // Kept on the output: the box is the output's, in the layer surface's coordinates.
    keep_popup_inside(*popup, nullptr, [this]() -> placement::Box {
        const wlr_box* output =
            surface_->output ? wlr_output_layout_get_box(shell_.core().layout, surface_->output) : nullptr;
        if (!output)
            return {};
        return {output->x - x_, output->y - y_, output->width, output->height};
    });
}

}  // namespace kiln::compositor
