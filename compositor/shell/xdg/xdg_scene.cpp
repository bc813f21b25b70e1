// The scene tree of an xdg surface, kept in step with its map state, window geometry and popup position.
#include "compositor/shell/xdg/xdg_scene.hpp"

#include "compositor/listener.hpp"
#include "compositor/shell/xdg/xdg_surface.hpp"

namespace kiln::compositor::xdg {
namespace {

class SceneTree {
public:
    SceneTree(wlr_scene_node* parent, Surface& surface)
        : xdg_(surface),
          tree_(wlr_scene_tree_create(parent)),
          surface_tree_(wlr_scene_subsurface_tree_create(&tree_->node, surface.surface()))
    {
        tree_destroy_.connect(&tree_->node.events.destroy, [this](void*) { delete this; });
        xdg_destroy_.connect(&surface.events.destroy, [this](void*) { wlr_scene_node_destroy(&tree_->node); });
        map_.connect(&surface.events.map, [this](void*) {
            update();
            wlr_scene_node_set_enabled(&tree_->node, true);
        });
        unmap_.connect(&surface.events.unmap, [this](void*) { wlr_scene_node_set_enabled(&tree_->node, false); });
        commit_.connect(&surface.events.commit, [this](void*) { update(); });
        wlr_scene_node_set_enabled(&tree_->node, surface.mapped());
        update();
    }

    wlr_scene_node* node() const { return &tree_->node; }

private:
    void update()
    {
        const wlr_box geometry = xdg_.geometry();
        if (surface_tree_)
            wlr_scene_node_set_position(surface_tree_, -geometry.x, -geometry.y);
        if (Popup* popup = xdg_.popup())
            wlr_scene_node_set_position(&tree_->node, popup->geometry.x, popup->geometry.y);
    }

    Surface& xdg_;
    wlr_scene_tree* tree_;
    wlr_scene_node* surface_tree_;

    wl::Listener tree_destroy_;
    wl::Listener xdg_destroy_;
    wl::Listener map_;
    wl::Listener unmap_;
    wl::Listener commit_;
};

}  // namespace

wlr_scene_node* create_scene_tree(wlr_scene_node* parent, Surface& surface)
{
    return (new SceneTree(parent, surface))->node();  // freed with its tree
}

}  // namespace kiln::compositor::xdg
