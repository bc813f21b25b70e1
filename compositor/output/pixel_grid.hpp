// The rule that puts scene nodes on whole output pixels at any scale, shared by output frames and window captures.
#pragma once

#include <cmath>

namespace kiln::compositor {

// A layout length (a node's offset from its parent, or its size) in output pixels: length x scale, rounded half away
// from zero. Each node is placed at its parent's pixel plus its own offset rounded so, and covers its size rounded
// so: what meets in layout coordinates meets in pixels (no seam, no overlap), and a surface keeps round(size x scale)
// pixels, the buffer size a fractional-scale client draws, so its texels land 1:1 and are sampled NEAREST.
inline int to_pixels(int length, float scale)
{
    return static_cast<int>(std::lround(length * static_cast<double>(scale)));
}

}  // namespace kiln::compositor
