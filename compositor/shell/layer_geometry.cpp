// Layer-shell geometry: anchors and margins along each axis, exclusive zones along one edge, clamped.
#include "compositor/shell/layer_geometry.hpp"

#include <algorithm>

namespace kiln::compositor {

namespace {

constexpr uint32_t anchor_top = ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP;
constexpr uint32_t anchor_bottom = ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM;
constexpr uint32_t anchor_left = ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT;
constexpr uint32_t anchor_right = ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT;

// Along one axis: where a surface of `size` (0: the whole extent, less margins) goes between `start` and
// start + extent. `low` and `high` say whether it is anchored to the start and end edges.
void place_axis(int start, int extent, int size, bool low, bool high, int margin_low, int margin_high, int& pos,
                int& length)
{
    if (size == 0) {
        pos = start + margin_low;
        length = extent - margin_low - margin_high;
    } else if (low && !high) {
        pos = start + margin_low;
        length = size;
    } else if (high && !low) {
        pos = start + extent - size - margin_high;
        length = size;
    } else {
        pos = start + (extent - size) / 2;  // both or neither: centred, margins do not apply
        length = size;
    }
}

}  // namespace

wlr_box place_layer_surface(const wlr_box& bounds, uint32_t anchor, uint32_t desired_width, uint32_t desired_height,
                            int32_t margin_top, int32_t margin_right, int32_t margin_bottom, int32_t margin_left)
{
    wlr_box box{};
    // Sizes past the output are the client's to ask for; the box is clamped to what an int holds.
    const int width = static_cast<int>(std::min<uint32_t>(desired_width, 1u << 20));
    const int height = static_cast<int>(std::min<uint32_t>(desired_height, 1u << 20));
    place_axis(bounds.x, bounds.width, width, anchor & anchor_left, anchor & anchor_right, margin_left, margin_right,
               box.x, box.width);
    place_axis(bounds.y, bounds.height, height, anchor & anchor_top, anchor & anchor_bottom, margin_top,
               margin_bottom, box.y, box.height);
    if (box.width <= 0 || box.height <= 0)
        return wlr_box{};
    return box;
}

void take_exclusive_zone(wlr_box& usable, uint32_t anchor, int32_t zone, int32_t margin_top, int32_t margin_right,
                         int32_t margin_bottom, int32_t margin_left)
{
    if (zone <= 0)
        return;
    // The edge a zone applies to: anchored to it alone, or to it and both sides next to it.
    const uint32_t horizontal = anchor_left | anchor_right;
    const uint32_t vertical = anchor_top | anchor_bottom;
    const uint32_t edge = anchor == (anchor_top | horizontal) || anchor == anchor_top       ? anchor_top
                          : anchor == (anchor_bottom | horizontal) || anchor == anchor_bottom ? anchor_bottom
                          : anchor == (anchor_left | vertical) || anchor == anchor_left     ? anchor_left
                          : anchor == (anchor_right | vertical) || anchor == anchor_right   ? anchor_right
                                                                                            : 0;
    // A zone never takes more than half of what is left, so windows always keep somewhere to go however large a
    // zone a client asks for.
    auto take = [](int margin, int32_t wanted, int left) {
        const int64_t want = static_cast<int64_t>(wanted) + std::max(margin, 0);
        return static_cast<int>(std::clamp<int64_t>(want, 0, left / 2));
    };
    switch (edge) {
    case anchor_top: {
        const int t = take(margin_top, zone, usable.height);
        usable.y += t;
        usable.height -= t;
        break;
    }
    case anchor_bottom:
        usable.height -= take(margin_bottom, zone, usable.height);
        break;
    case anchor_left: {
        const int t = take(margin_left, zone, usable.width);
        usable.x += t;
        usable.width -= t;
        break;
    }
    case anchor_right:
        usable.width -= take(margin_right, zone, usable.width);
        break;
    default:
        break;  // anchored to no single edge: the zone means nothing
    }
}

}  // namespace kiln::compositor
