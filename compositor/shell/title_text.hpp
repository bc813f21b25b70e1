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

// `title` in light text on `background_rgb` (0xRRGGBB), ellipsized to `width` × `height` pixels, after `icon` (if
// any) scaled to a square icon_size(height) high, as an opaque XRGB8888 buffer its producer gives up (wlr_buffer_drop)
// once a scene node holds it; null for an empty title without icon or an empty size, or where kiln was built
// without Pango.
wlr_buffer* render_title(const std::string& title, int width, int height, uint32_t background_rgb,
                         const TitleIcon* icon = nullptr);
// The side of the icon on a title bar of `height`: 2 pixels clear above and below.
constexpr int icon_size(int height)
{
    return height - 4;
}

}  // namespace kiln::compositor
