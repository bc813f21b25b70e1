// Import probes on a small memfd: whether a display really imports a format, whole or plane by plane.
#pragma once

#include "renderer/egl_display.hpp"

#include <cstdint>

namespace kiln::renderer {

enum class ProbeResult {
    refused,         // no image of this format can be made here
    whole,           // one EGLImage of the whole buffer (the driver samples it, converting YUV itself)
    through_planes,  // refused whole, but each plane imports as R8/GR88: kiln's shaders convert it
};

// Makes (and drops) a 16x16 image of `fourcc` with every plane in one zeroed memfd. Only meaningful on a display
// that maps any fd it is given (software drivers); hardware needs real dma-bufs.
ProbeResult probe_import(const EglDisplay& display, uint32_t fourcc);

}  // namespace kiln::renderer
