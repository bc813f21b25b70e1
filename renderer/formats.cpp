// The format table: memory layout of each fourcc.
#include "renderer/formats.hpp"

#include <array>

namespace kiln::renderer {
namespace {

const std::array<FormatInfo, 9> table{{
    {fourcc::argb8888, "ARGB8888", 1, {{4, 1, 1}}, true, false},
    {fourcc::xrgb8888, "XRGB8888", 1, {{4, 1, 1}}, false, false},
    {fourcc::abgr8888, "ABGR8888", 1, {{4, 1, 1}}, true, false},
    {fourcc::xbgr8888, "XBGR8888", 1, {{4, 1, 1}}, false, false},
    {fourcc::rgb565, "RGB565", 1, {{2, 1, 1}}, false, false},
    // YUV: luma at full size, chroma subsampled (interleaved Cb,Cr pairs in NV*, separate planes in YUV4*).
    {fourcc::nv12, "NV12", 2, {{1, 1, 1}, {2, 2, 2}}, false, true},
    {fourcc::nv16, "NV16", 2, {{1, 1, 1}, {2, 2, 1}}, false, true},
    {fourcc::yuv420, "YUV420", 3, {{1, 1, 1}, {1, 2, 2}, {1, 2, 2}}, false, true},
    {fourcc::yuv422, "YUV422", 3, {{1, 1, 1}, {1, 2, 1}, {1, 2, 1}}, false, true},
}};

const std::array<uint32_t, 5> shm_list{fourcc::argb8888, fourcc::xrgb8888, fourcc::abgr8888, fourcc::xbgr8888,
                                       fourcc::rgb565};

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
