// Core: what every room of kiln shares (display, backend, scene and its layers, output layout, options, stats),
// as plain references to what Server owns: no behaviour, and nothing a room could tear down.
#pragma once

#include "compositor/scene_layers.hpp"
#include "compositor/stats.hpp"
#include "compositor/wlr.hpp"
#include "compositor/session/options.hpp"

namespace kiln::compositor {

// References to Server's own members, so a room reads each as Server::start() made it: the backend, scene and layout
// exist before any room is made, and the backend reads null once it has gone away.
struct Core {
    const Options& options;  // Server's copy: SIGHUP replaces its reloadable parts
    Stats& stats;
    wl_display* const& display;
    wlr_backend* const& backend;
    wlr_scene* const& scene;
    const SceneLayers& layers;  // the scene's trees in stacking order
    wlr_output_layout* const& layout;
};

}  // namespace kiln::compositor
