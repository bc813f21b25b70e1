// YCbCr-to-RGB conversions derived from each standard's luma weights, and the plane layouts of the YUV formats.
#include "renderer/yuv.hpp"

#include "renderer/formats.hpp"

namespace kiln::renderer {

const char* yuv_encoding_name(YuvEncoding encoding)
{
    const bool full = encoding.range == YuvRange::full;
    switch (encoding.space) {
    case YuvColorSpace::bt709: return full ? "BT.709 full" : "BT.709 limited";
    case YuvColorSpace::bt2020: return full ? "BT.2020 full" : "BT.2020 limited";
    case YuvColorSpace::bt601: break;
    }
    return full ? "BT.601 full" : "BT.601 limited";
}

YuvConversion yuv_conversion(YuvEncoding encoding, uint32_t depth)
{
    // Luma weights of red and blue (BT.601 table 3, BT.709 item 3.2, BT.2020 table 4 non-constant luminance); green
    // takes the rest.
    double kr = 0.299;
    double kb = 0.114;
    if (encoding.space == YuvColorSpace::bt709) {
        kr = 0.2126;
        kb = 0.0722;
    } else if (encoding.space == YuvColorSpace::bt2020) {
        kr = 0.2627;
        kb = 0.0593;
    }
    const double kg = 1.0 - kr - kb;
    // Limited range: luma spans codes 16..235 and chroma 16..240 around 128, times 2^(depth - 8) (BT.2020 table 5:
    // 64..940 and 64..960 around 512 at 10 bits); full range spans 0..2^depth - 1 with chroma around 2^(depth - 1).
    // `unit` is the code a sampled 1.0 stands for: 255 for 8-bit samples, 65535 / 64 for 10 bits in 16.
    const bool limited = encoding.range == YuvRange::limited;
    const double q = depth > 8 ? static_cast<double>(1u << (depth - 8)) : 1.0;
    const double unit = depth > 8 ? 65535.0 / static_cast<double>(1u << (16 - depth)) : 255.0;
    const double code_max = depth > 8 ? static_cast<double>((1u << depth) - 1) : 255.0;
    const double y_scale = unit / (limited ? 219.0 * q : code_max);
    const double c_scale = unit / (limited ? 224.0 * q : code_max);
    // Inverting Y = kr R + kg G + kb B, Cb = (B - Y) / (2 (1 - kb)), Cr = (R - Y) / (2 (1 - kr)).
    const double r_cr = 2.0 * (1.0 - kr);
    const double b_cb = 2.0 * (1.0 - kb);
    const double g_cb = -kb * b_cb / kg;
    const double g_cr = -kr * r_cr / kg;
    YuvConversion out;
    out.matrix = {
        static_cast<float>(y_scale), 0.0f, static_cast<float>(r_cr * c_scale),
        static_cast<float>(y_scale), static_cast<float>(g_cb * c_scale), static_cast<float>(g_cr * c_scale),
        static_cast<float>(y_scale), static_cast<float>(b_cb * c_scale), 0.0f,
    };
    const auto c_offset = static_cast<float>(128.0 * q / unit);
    out.offset = {limited ? static_cast<float>(16.0 * q / unit) : 0.0f, c_offset, c_offset};
    return out;
}

std::array<float, 2> chroma_offset(YuvEncoding encoding, const YuvLayout& layout, int32_t width, int32_t height)
{
    // A luma sample i is sampled at texture coordinate (i + 0.5) / width; the chroma sample k of a 2x subsampled
    // plane sits at luma position 2k + chroma_x, which linear filtering puts at chroma coordinate (k + 0.5) / (width
    // / 2). Solving for the chroma coordinate of a luma coordinate u: (u + (0.5 - chroma_x) / width) * scale, so
    // centred chroma (0.5) needs no shift. A direction that is not subsampled has its chroma on its luma.
    const float dx = layout.h_subsample == 2 ? (0.5f - encoding.chroma_x) / static_cast<float>(width) : 0.0f;
    const float dy = layout.v_subsample == 2 ? (0.5f - encoding.chroma_y) / static_cast<float>(height) : 0.0f;
    return {dx, dy};
}

std::optional<YuvLayout> yuv_layout(uint32_t code, int32_t width, int32_t height)
{
    YuvLayout layout;
    uint32_t h_sub = 2;
    uint32_t v_sub = 1;
    switch (code) {
    case fourcc::p010: layout.depth = 10; [[fallthrough]];
    case fourcc::nv12: v_sub = 2; [[fallthrough]];
    case fourcc::nv16: layout.shape = YuvShape::semiplanar; layout.plane_count = 2; break;
    case fourcc::yuv420: v_sub = 2; [[fallthrough]];
    case fourcc::yuv422: layout.shape = YuvShape::planar; layout.plane_count = 3; break;
    default: return std::nullopt;
    }
    if (width < 1 || height < 1)
        return std::nullopt;
    const int32_t chroma_w = (width + static_cast<int32_t>(h_sub) - 1) / static_cast<int32_t>(h_sub);
    const int32_t chroma_h = (height + static_cast<int32_t>(v_sub) - 1) / static_cast<int32_t>(v_sub);
    const bool wide = layout.depth > 8;
    layout.h_subsample = h_sub;
    layout.v_subsample = v_sub;
    layout.planes[0] = {wide ? fourcc::r16 : fourcc::r8, width, height};
    const uint32_t chroma_fourcc = layout.shape == YuvShape::planar ? fourcc::r8 : wide ? fourcc::gr1616 : fourcc::gr88;
    for (uint32_t i = 1; i < layout.plane_count; ++i)
        layout.planes[i] = {chroma_fourcc, chroma_w, chroma_h};
    layout.chroma_scale_x = static_cast<float>(width) / static_cast<float>(chroma_w * static_cast<int32_t>(h_sub));
    layout.chroma_scale_y = static_cast<float>(height) / static_cast<float>(chroma_h * static_cast<int32_t>(v_sub));
    return layout;
}

DmabufAttributes yuv_plane_attributes(const DmabufAttributes& whole, const YuvLayout& layout, uint32_t index)
{
    DmabufAttributes plane;
    plane.width = layout.planes[index].width;
    plane.height = layout.planes[index].height;
    plane.fourcc = layout.planes[index].fourcc;
    plane.modifier = whole.modifier;
    plane.plane_count = 1;
    plane.planes[0] = whole.planes[index];
    return plane;
}

}  // namespace kiln::renderer
