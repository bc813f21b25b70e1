// opaque_pixels: a surface's opaque region (surface coordinates) mapped onto the output pixels it is drawn on, at any
// scale, keeping only pixels it covers whole so culling never hides a pixel that shows through.
#pragma once

#include "compositor/region.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

// The pixels of `box` (output buffer coordinates, where a width x height surface is drawn stretched) that lie wholly
// inside `opaque` (surface coordinates). Computed as the box less every pixel that touches the rest of the surface, so
// rectangles of the region that meet leave no gap between them, however the scale splits a pixel.
Region opaque_pixels(const pixman_region32_t* opaque, int width, int height, const wlr_box& box);

}  // namespace kiln::compositor
