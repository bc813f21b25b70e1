// Layer-shell geometry: where a layer surface goes on its output, and what its exclusive zone leaves to windows.
#pragma once

#include "compositor/wlr.hpp"

#include <cstdint>

namespace kiln::compositor {

// Where a layer surface of `desired` size, anchors and margins goes in `bounds` (empty when it cannot fit).
wlr_box place_layer_surface(const wlr_box& bounds, uint32_t anchor, uint32_t desired_width, uint32_t desired_height,
                            int32_t margin_top, int32_t margin_right, int32_t margin_bottom, int32_t margin_left);
// Takes an exclusive zone (plus the margin on its edge) out of `usable` along the edge the surface is anchored to;
// a zone never takes more than half of what is left.
void take_exclusive_zone(wlr_box& usable, uint32_t anchor, int32_t zone, int32_t margin_top, int32_t margin_right,
                         int32_t margin_bottom, int32_t margin_left);

}  // namespace kiln::compositor
