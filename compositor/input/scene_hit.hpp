// SceneHit: what the scene shows at a layout point — the surface (with its scene node and local coordinates) and
// the window it belongs to.
#pragma once

#include "compositor/wlr.hpp"

namespace kiln::compositor {

class Toplevel;

struct SceneHit {
    wlr_scene_node* node = nullptr;  // the surface's node, for its position later (a touch point's motion)
    wlr_surface* surface = nullptr;
    double sx = 0;
    double sy = 0;
    Toplevel* toplevel = nullptr;  // null for a surface outside any window
};

// The topmost surface under (lx, ly), if any. A window's tree carries its Toplevel in `data`.
inline SceneHit scene_hit(wlr_scene* scene, double lx, double ly)
{
    SceneHit hit;
    wlr_scene_node* node = wlr_scene_node_at(&scene->node, lx, ly, &hit.sx, &hit.sy);
    if (!node || node->type != WLR_SCENE_NODE_SURFACE)
        return {};
    hit.node = node;
    hit.surface = wlr_scene_surface_from_node(node)->surface;
    for (wlr_scene_node* n = node; n; n = n->parent)
        if (n->data) {
            hit.toplevel = static_cast<Toplevel*>(n->data);
            break;
        }
    return hit;
}

}  // namespace kiln::compositor
