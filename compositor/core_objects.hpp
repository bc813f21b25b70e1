// CoreObjects: the wlroots objects Server makes once the renderer exists and the Core refers to (wl_compositor and the
// data device manager, the output layout with xdg-output, the scene attached to it and the scene's layers), made in
// that order into Server's members, which free them (their declaration order in server.hpp is the teardown order).
#pragma once

#include "compositor/scene_layers.hpp"
#include "compositor/wlr.hpp"

#include <string>

namespace kiln::compositor {

// References to Server's members.
struct CoreObjects {
    wlr_compositor*& compositor;  // freed with the display
    wlr_output_layout*& layout;
    wlr_scene*& scene;
    SceneLayers& layers;
    const wl_global* xdg_output_global = nullptr;  // set by make(); the manager is freed with the display

    // False (with `error`) when wlroots cannot make one (it returns null when memory or a global cannot be had).
    bool make(wl_display* display, wlr_renderer* renderer, std::string& error);
};

}  // namespace kiln::compositor
