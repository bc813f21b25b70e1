// Title text: a window's title drawn with Pango into a wlr_buffer of CPU pixels, on the title bar's colour, for
// ServerDecoration to show as a scene buffer.
#pragma once

#include "compositor/wlr.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::compositor {

// A window's icon (xdg-toplevel-icon): size x size premultiplied ARGB8888 pixels, rows top to bottom.
struct TitleIcon {
    int size = 0;
    std::vector<uint32_t> argb;
};

// `title` in light text on `background_rgb` (0xRRGGBB), ellipsized to `width` × `height` layout pixels, after `icon`
// (if any) scaled to a square icon_size(height) high, as an opaque XRGB8888 buffer its producer gives up
// (wlr_buffer_drop) once a scene node holds it; null for an empty title without icon or an empty size, or where kiln
// was built without Pango. Drawn at `scale`: the buffer is title_pixels(width) x title_pixels(height), the pixels
// the frame pipeline gives a node of width x height at that scale, and the font is scale times as large, so on an
// output of that scale its glyphs land 1:1 on the screen's pixels (laid out there, not scaled up from 1x).
wlr_buffer* render_title(const std::string& title, int width, int height, uint32_t background_rgb,
                         const TitleIcon* icon = nullptr, float scale = 1.0f);
// The pixels `length` layout pixels take at `scale`: rounded once, as the frame pipeline rounds a node's size.
int title_pixels(int length, float scale);
// The side of the icon on a title bar of `height`: 2 pixels clear above and below.
constexpr int icon_size(int height)
{
    return height - 4;
}

}  // namespace kiln::compositor
