// opaque_pixels: the surface's non-opaque part scaled outward, taken from the box.
#include "compositor/output/opaque_pixels.hpp"

#include <cmath>

namespace kiln::compositor {

Region opaque_pixels(const pixman_region32_t* opaque, int width, int height, const wlr_box& box)
{
    Region pixels;
    if (width <= 0 || height <= 0 || box.width <= 0 || box.height <= 0)
        return pixels;
    // What is not opaque, in surface coordinates.
    Region see_through(0, 0, width, height);
    Region solid;
    solid.add(opaque);
    see_through.subtract(solid);

    pixels = Region(box.x, box.y, box.width, box.height);
    const double kx = static_cast<double>(box.width) / width;
    const double ky = static_cast<double>(box.height) / height;
    // A tolerance for products that are whole but come out a hair off in floating point (e.g. 10 x 1.1).
    constexpr double slack = 1e-6;
    Region touched;
    for (const auto& r : see_through.rects()) {
        const int x1 = static_cast<int>(std::floor(r.x1 * kx + slack));
        const int y1 = static_cast<int>(std::floor(r.y1 * ky + slack));
        const int x2 = static_cast<int>(std::ceil(r.x2 * kx - slack));
        const int y2 = static_cast<int>(std::ceil(r.y2 * ky - slack));
        pixman_region32_union_rect(touched.get(), touched.get(), box.x + x1, box.y + y1,
                                   static_cast<unsigned>(x2 - x1), static_cast<unsigned>(y2 - y1));
    }
    pixels.subtract(touched);
    return pixels;
}

}  // namespace kiln::compositor
