// Title text: a window's title drawn with Pango into a wlr_buffer of CPU pixels, on the title bar's colour, for
// ServerDecoration to show as a scene buffer.
#pragma once

#include "compositor/wlr.hpp"

#include <cstdint>
#include <string>

namespace kiln::compositor {

// `title` in light text on `background_rgb` (0xRRGGBB), ellipsized to `width` × `height` pixels, as an opaque XRGB8888
// buffer its producer gives up (wlr_buffer_drop) once a scene node holds it; null for an empty title or size, or
// where kiln was built without Pango.
wlr_buffer* render_title(const std::string& title, int width, int height, uint32_t background_rgb);

}  // namespace kiln::compositor
