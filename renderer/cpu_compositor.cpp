// CpuCompositor: pixman images over kiln's CPU memory, composed per damage rectangle.
#include "renderer/cpu_compositor.hpp"

#include "renderer/formats.hpp"
#include "renderer/over_8888.hpp"

#include <pixman.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace kiln::renderer {
namespace {

// DRM fourccs name the channels of a little-endian word from the most significant end; so do pixman's codes.
std::optional<pixman_format_code_t> pixman_format(uint32_t fourcc)
{
    switch (fourcc) {
    case fourcc::argb8888:
        return PIXMAN_a8r8g8b8;
    case fourcc::xrgb8888:
        return PIXMAN_x8r8g8b8;
    case fourcc::abgr8888:
        return PIXMAN_a8b8g8r8;
    case fourcc::xbgr8888:
        return PIXMAN_x8b8g8r8;
    case fourcc::rgb565:
        return PIXMAN_r5g6b5;
    // 10-bit sources: pixman composes them through its float path into the 8-bit target (within one code value of
    // GL's rounding). Half floats have no pixman format: frames showing them are composed by GL.
    case fourcc::argb2101010:
        return PIXMAN_a2r10g10b10;
    case fourcc::xrgb2101010:
        return PIXMAN_x2r10g10b10;
    case fourcc::abgr2101010:
        return PIXMAN_a2b10g10r10;
    case fourcc::xbgr2101010:
        return PIXMAN_x2b10g10r10;
    default:
        return std::nullopt;
    }
}

// Wraps memory kiln owns or maps; pixman never frees it. nullptr for an unsupported or impossible image.
pixman_image_t* wrap(const CpuImage& image)
{
    const auto format = pixman_format(image.fourcc);
    const auto info = format_info(image.fourcc);
    if (!format || !info || !image.data || image.width < 1 || image.height < 1 || image.stride % 4 != 0 ||
        image.stride < static_cast<uint32_t>(image.width) * info->planes[0].bytes_per_pixel)
        return nullptr;
    return pixman_image_create_bits_no_clear(*format, image.width, image.height, static_cast<uint32_t*>(image.data),
                                             static_cast<int>(image.stride));
}

// over_8888()'s case: a premultiplied 8-bit source with alpha over a target of the same channel order (its fourth
// channel alpha or unused), both 32-bit rows.
bool kernel_fits(const CpuImage& source, const CpuImage& target)
{
    const bool rgb = source.fourcc == fourcc::argb8888 &&
                     (target.fourcc == fourcc::argb8888 || target.fourcc == fourcc::xrgb8888);
    const bool bgr = source.fourcc == fourcc::abgr8888 &&
                     (target.fourcc == fourcc::abgr8888 || target.fourcc == fourcc::xbgr8888);
    const auto rows_ok = [](const CpuImage& image) {
        return image.data && image.width > 0 && image.height > 0 && image.stride % 4 == 0 &&
               image.stride >= static_cast<uint32_t>(image.width) * 4;
    };
    return (rgb || bgr) && rows_ok(source) && rows_ok(target) && over_8888_available();
}

// Source-over of `source` onto `box` of `target`, destination pixel (x, y) showing texel (x + offset_x,
// y + offset_y); clipped to both images, as pixman clips (a texel outside the source is transparent: nothing drawn).
void over_box(const CpuImage& source, int32_t offset_x, int32_t offset_y, const CpuImage& target, Box box)
{
    const int64_t x0 = std::max<int64_t>({box.x, 0, -int64_t{offset_x}});
    const int64_t y0 = std::max<int64_t>({box.y, 0, -int64_t{offset_y}});
    const int64_t x1 = std::min<int64_t>({int64_t{box.x} + box.width, target.width, int64_t{source.width} - offset_x});
    const int64_t y1 =
        std::min<int64_t>({int64_t{box.y} + box.height, target.height, int64_t{source.height} - offset_y});
    if (x1 <= x0 || y1 <= y0)
        return;
    const size_t target_stride = target.stride / 4;
    const size_t source_stride = source.stride / 4;
    auto* dst = static_cast<uint32_t*>(target.data) + static_cast<size_t>(y0) * target_stride + static_cast<size_t>(x0);
    const auto* src = static_cast<const uint32_t*>(source.data) + static_cast<size_t>(y0 + offset_y) * source_stride +
                      static_cast<size_t>(x0 + offset_x);
    over_8888(dst, target_stride, src, source_stride, static_cast<int>(x1 - x0), static_cast<int>(y1 - y0));
}

uint16_t channel(float value, float alpha)
{
    return static_cast<uint16_t>(std::clamp(value * alpha, 0.0f, 1.0f) * 65535.0f + 0.5f);
}

}  // namespace

bool cpu_format_supported(uint32_t fourcc)
{
    return pixman_format(fourcc).has_value();
}

CpuCompositor::CpuCompositor(const CpuImage& target) : target_(wrap(target)), target_image_(target) {}

CpuCompositor::~CpuCompositor()
{
    if (target_)
        pixman_image_unref(target_);
}

void CpuCompositor::fill(std::span<const Box> boxes, Color color)
{
    if (!target_ || boxes.empty())
        return;
    const pixman_color_t premultiplied{channel(color.r, color.a), channel(color.g, color.a), channel(color.b, color.a),
                                       channel(1.0f, color.a)};
    for (const Box& box : boxes) {
        const pixman_box32_t b{box.x, box.y, box.x + box.width, box.y + box.height};
        pixman_image_fill_boxes(PIXMAN_OP_SRC, target_, &premultiplied, 1, &b);
    }
}

void CpuCompositor::fill_premultiplied(std::span<const Box> boxes, Color color, bool blend)
{
    if (!target_ || boxes.empty())
        return;
    const pixman_color_t premultiplied{channel(color.r, 1.0f), channel(color.g, 1.0f), channel(color.b, 1.0f),
                                       channel(color.a, 1.0f)};
    // Source-over with an opaque colour is a plain fill; pixman's SRC path is the fast one.
    const pixman_op_t op = blend && color.a < 1.0f ? PIXMAN_OP_OVER : PIXMAN_OP_SRC;
    std::vector<pixman_box32_t> pixman_boxes;
    pixman_boxes.reserve(boxes.size());
    for (const Box& box : boxes)
        pixman_boxes.push_back({box.x, box.y, box.x + box.width, box.y + box.height});
    pixman_image_fill_boxes(op, target_, &premultiplied, static_cast<int>(pixman_boxes.size()), pixman_boxes.data());
}

bool CpuCompositor::copy(const CpuImage& source, int32_t source_x, int32_t source_y, Box destination, bool blend,
                         float alpha)
{
    if (!target_)
        return false;
    if (blend && alpha >= 1.0f && kernel_fits(source, target_image_)) {  // an alpha source: OVER, as below
        over_box(source, source_x - destination.x, source_y - destination.y, target_image_, destination);
        return true;
    }
    pixman_image_t* image = wrap(source);
    if (!image)
        return false;
    if (blend && alpha < 1.0f) {
        // A solid mask of that alpha: source IN mask OVER destination, as GL's premultiplied colour * alpha.
        const auto a = static_cast<uint16_t>(std::lround(std::clamp(alpha, 0.0f, 1.0f) * 0xffff));
        const pixman_color_t colour{a, a, a, a};
        pixman_image_t* mask = pixman_image_create_solid_fill(&colour);
        pixman_image_composite32(PIXMAN_OP_OVER, image, mask, target_, source_x, source_y, 0, 0, destination.x,
                                 destination.y, destination.width, destination.height);
        if (mask)
            pixman_image_unref(mask);
        pixman_image_unref(image);
        return true;
    }
    // pixman clips to both images itself; an opaque source composes the same either way, and SRC is the fast path.
    const bool opaque_source = !format_info(source.fourcc)->has_alpha;
    pixman_image_composite32(blend && !opaque_source ? PIXMAN_OP_OVER : PIXMAN_OP_SRC, image, nullptr, target_,
                             source_x, source_y, 0, 0, destination.x, destination.y, destination.width,
                             destination.height);
    pixman_image_unref(image);
    return true;
}

bool CpuCompositor::copy_boxes(const CpuImage& source, int32_t offset_x, int32_t offset_y,
                               std::span<const Box> destinations, bool blend, float alpha)
{
    if (!target_)
        return false;
    if (destinations.empty())
        return true;
    if (blend && alpha >= 1.0f && kernel_fits(source, target_image_)) {  // an alpha source: OVER, as below
        for (const Box& box : destinations)
            over_box(source, offset_x, offset_y, target_image_, box);
        return true;
    }
    pixman_image_t* image = wrap(source);
    if (!image)
        return false;
    pixman_image_t* mask = nullptr;
    pixman_op_t op = PIXMAN_OP_SRC;
    if (blend && alpha < 1.0f) {
        const auto a = static_cast<uint16_t>(std::lround(std::clamp(alpha, 0.0f, 1.0f) * 0xffff));
        const pixman_color_t colour{a, a, a, a};
        mask = pixman_image_create_solid_fill(&colour);
        op = PIXMAN_OP_OVER;
    } else if (blend && format_info(source.fourcc)->has_alpha) {
        op = PIXMAN_OP_OVER;
    }
    int32_t x1 = destinations[0].x, y1 = destinations[0].y;
    int32_t x2 = x1 + destinations[0].width, y2 = y1 + destinations[0].height;
    std::vector<pixman_box32_t> rects;
    rects.reserve(destinations.size());
    for (const Box& box : destinations) {
        rects.push_back({box.x, box.y, box.x + box.width, box.y + box.height});
        x1 = std::min(x1, box.x);
        y1 = std::min(y1, box.y);
        x2 = std::max(x2, box.x + box.width);
        y2 = std::max(y2, box.y + box.height);
    }
    // The destination's clip region limits the one composite of the boxes' bounds to the boxes themselves.
    const bool clipped = destinations.size() > 1;
    if (clipped) {
        pixman_region32_t clip;
        pixman_region32_init_rects(&clip, rects.data(), static_cast<int>(rects.size()));
        pixman_image_set_clip_region32(target_, &clip);  // copied into the image
        pixman_region32_fini(&clip);
    }
    pixman_image_composite32(op, image, mask, target_, x1 + offset_x, y1 + offset_y, 0, 0, x1, y1, x2 - x1, y2 - y1);
    if (clipped)
        pixman_image_set_clip_region32(target_, nullptr);
    if (mask)
        pixman_image_unref(mask);
    pixman_image_unref(image);
    return true;
}

bool read_cpu_image(const CpuImage& source, Box region, uint32_t fourcc, uint32_t stride, void* data)
{
    // 64-bit sums: a region asked for by a client (a screencopy box near INT32_MAX) must not wrap past the check.
    if (region.x < 0 || region.y < 0 || region.width < 1 || region.height < 1 ||
        int64_t{region.x} + region.width > source.width || int64_t{region.y} + region.height > source.height)
        return false;
    CpuCompositor destination(CpuImage{fourcc, region.width, region.height, stride, data});
    return destination.ok() && destination.copy(source, region.x, region.y, Box{0, 0, region.width, region.height},
                                                 false);
}

}  // namespace kiln::renderer
