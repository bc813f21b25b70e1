// CpuCompositor: composes a frame with pixman straight into an output buffer's memory, for displays whose GL is
// itself software (llvmpipe), where shading every pixel through a JIT rasterizer costs several times a pixman blit.
#pragma once

#include "renderer/types.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

union pixman_image;

namespace kiln::renderer {

// Pixels in CPU memory: rows of `stride` bytes, top-down, `fourcc` a DRM format.
struct CpuImage {
    uint32_t fourcc = 0;
    int32_t width = 0;
    int32_t height = 0;
    uint32_t stride = 0;
    void* data = nullptr;
};

// Whether pixman can read and write this DRM format (the 8-bit RGB orders, RGB565, 10-bit RGB).
bool cpu_format_supported(uint32_t fourcc);

class CpuCompositor {
public:
    // Draws into `target` until destroyed; check ok() first (false for an unsupported format or empty image).
    explicit CpuCompositor(const CpuImage& target);
    ~CpuCompositor();
    CpuCompositor(const CpuCompositor&) = delete;
    CpuCompositor& operator=(const CpuCompositor&) = delete;

    bool ok() const { return target_ != nullptr; }
    // Fills `boxes` with a colour (straight alpha in, premultiplied out).
    void fill(std::span<const Box> boxes, Color color);
    // Fills `boxes` with a premultiplied colour: composed source-over with `blend`, else replacing what is there.
    void fill_premultiplied(std::span<const Box> boxes, Color color, bool blend);
    // Copies `source`'s texels onto `destination` 1:1, the source's top-left texel at (source_x, source_y) landing
    // on the destination box's top-left; `blend` composes source-over (premultiplied), else replaces; with `blend`,
    // `alpha` below 1 multiplies the source first (even an opaque format's). Clipped to both images.
    bool copy(const CpuImage& source, int32_t source_x, int32_t source_y, Box destination, bool blend,
              float alpha = 1.0f);
    // copy() onto each of the disjoint `destinations`, destination pixel (x, y) showing texel (x + offset_x,
    // y + offset_y): the source wrapped once and composed in one pixman call clipped to the boxes (a window in a
    // fragmented damage region is dozens of boxes; one call each cost more than their pixels).
    bool copy_boxes(const CpuImage& source, int32_t offset_x, int32_t offset_y, std::span<const Box> destinations,
                    bool blend, float alpha = 1.0f);

private:
    ::pixman_image* target_ = nullptr;
    CpuImage target_image_;  // the same memory, for kiln's own source-over kernel (over_8888)
};

// Copies `region` of `source` into `data` (rows of `stride` bytes) as `fourcc`, converting the format if needed.
bool read_cpu_image(const CpuImage& source, Box region, uint32_t fourcc, uint32_t stride, void* data);

}  // namespace kiln::renderer
