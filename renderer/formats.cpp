// The format table: memory layout of each fourcc.
#include "renderer/formats.hpp"

#include <array>

namespace kiln::renderer {
namespace {

const std::array<FormatInfo, 16> table{{
    {fourcc::argb8888, "ARGB8888", 1, {{4, 1, 1}}, true, false},
    {fourcc::xrgb8888, "XRGB8888", 1, {{4, 1, 1}}, false, false},
    {fourcc::abgr8888, "ABGR8888", 1, {{4, 1, 1}}, true, false},
    {fourcc::xbgr8888, "XBGR8888", 1, {{4, 1, 1}}, false, false},
    {fourcc::rgb565, "RGB565", 1, {{2, 1, 1}}, false, false},
    {fourcc::xrgb2101010, "XRGB2101010", 1, {{4, 1, 1}}, false, false},
    {fourcc::argb2101010, "ARGB2101010", 1, {{4, 1, 1}}, true, false},
    {fourcc::xbgr2101010, "XBGR2101010", 1, {{4, 1, 1}}, false, false},
    {fourcc::abgr2101010, "ABGR2101010", 1, {{4, 1, 1}}, true, false},
    {fourcc::xbgr16161616f, "XBGR16161616F", 1, {{8, 1, 1}}, false, false},
    {fourcc::abgr16161616f, "ABGR16161616F", 1, {{8, 1, 1}}, true, false},
    // YUV: luma at full size, chroma subsampled (interleaved Cb,Cr pairs in NV*, separate planes in YUV4*).
    {fourcc::nv12, "NV12", 2, {{1, 1, 1}, {2, 2, 2}}, false, true},
    {fourcc::nv16, "NV16", 2, {{1, 1, 1}, {2, 2, 1}}, false, true},
    {fourcc::yuv420, "YUV420", 3, {{1, 1, 1}, {1, 2, 2}, {1, 2, 2}}, false, true},
    {fourcc::yuv422, "YUV422", 3, {{1, 1, 1}, {1, 2, 1}, {1, 2, 1}}, false, true},
    {fourcc::p010, "P010", 2, {{2, 1, 1}, {4, 2, 2}}, false, true},
}};

// The high-depth ones are core GLES 3.0 texture formats (RGB10_A2, RGBA16F: sampled and filtered on every 3.0
// context, which is what kiln makes), so every renderer kiln starts samples them.
const std::array<uint32_t, 11> shm_list{fourcc::argb8888,      fourcc::xrgb8888,     fourcc::abgr8888,
                                        fourcc::xbgr8888,      fourcc::rgb565,       fourcc::xrgb2101010,
                                        fourcc::argb2101010,   fourcc::xbgr2101010,  fourcc::abgr2101010,
                                        fourcc::xbgr16161616f, fourcc::abgr16161616f};

}  // namespace

std::optional<FormatInfo> format_info(uint32_t code)
{
    for (const auto& info : table)
        if (info.fourcc == code)
            return info;
    return std::nullopt;
}

std::span<const uint32_t> shm_formats()
{
    return shm_list;
}

const char* format_name(uint32_t code)
{
    for (const auto& info : table)
        if (info.fourcc == code)
            return info.name;
    return "unknown";
}

}  // namespace kiln::renderer
