// SceneLayers: the scene's stacking order, bottom to top, one tree each under the scene's root.
#pragma once

#include "compositor/wlr.hpp"

#include <algorithm>
#include <array>

namespace kiln::compositor {

struct SceneLayers {
    wlr_scene_tree* background = nullptr;  // layer-shell's four layers around the windows
    wlr_scene_tree* bottom = nullptr;
    wlr_scene_tree* windows = nullptr;     // toplevels and their popups
    wlr_scene_tree* top = nullptr;
    wlr_scene_tree* fullscreen = nullptr;  // fullscreen toplevels (and their dialogs): over panels, under overlays
    wlr_scene_tree* overlay = nullptr;
    wlr_scene_tree* layer_popups = nullptr;  // popups of layer surfaces, above every layer they come from
    wlr_scene_tree* drag_icons = nullptr;    // a pointer drag's icon, above all a session shows (sway's seat layer)
    wlr_scene_tree* lock = nullptr;          // session-lock surfaces: the only tree shown while the session is locked

    // The trees in that order under `scene`'s root; they go with the scene.
    static SceneLayers create(wlr_scene* scene)
    {
        SceneLayers layers;
        // A new child goes on top of its siblings, so creation order is stacking order.
        for (wlr_scene_tree** tree : {&layers.background, &layers.bottom, &layers.windows, &layers.top,
                                      &layers.fullscreen, &layers.overlay, &layers.layer_popups, &layers.drag_icons, &layers.lock})
            *tree = wlr_scene_tree_create(&scene->node);
        return layers;
    }

    // Every tree but the lock's: what a locked session hides.
    auto unlocked() const { return std::array{background, bottom, windows, top, fullscreen, overlay, layer_popups, drag_icons}; }

    // Whether wlroots made every tree (it returns null when memory runs out).
    bool complete() const
    {
        const auto trees = unlocked();
        return lock && std::all_of(trees.begin(), trees.end(), [](wlr_scene_tree* tree) { return tree != nullptr; });
    }
};

}  // namespace kiln::compositor
