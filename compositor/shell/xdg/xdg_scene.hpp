// The scene tree of an xdg toplevel or popup: its wl_surface and subsurfaces, placed so the tree's origin is the
// window geometry's top-left corner (a popup's tree sits at its geometry in its parent's), shown while mapped.
#pragma once

#include "compositor/wlr.hpp"

namespace kiln::compositor::xdg {

class Surface;

// The tree is destroyed with the role object; destroying it earlier is fine too.
wlr_scene_node* create_scene_tree(wlr_scene_node* parent, Surface& surface);

}  // namespace kiln::compositor::xdg
