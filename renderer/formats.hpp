// The pixel formats kiln knows, as plain facts: fourcc, planes, sizes, alpha, YUV (how GL uploads each is
// renderer-private, in gl_formats.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace kiln::renderer {

struct PlaneLayout {
    uint32_t bytes_per_pixel = 0;  // per sample of this plane
    uint32_t h_subsample = 1;
    uint32_t v_subsample = 1;
};

struct FormatInfo {
    uint32_t fourcc = 0;
    const char* name = "";
    uint32_t plane_count = 1;
    PlaneLayout planes[3]{};
    bool has_alpha = false;
    bool yuv = false;
};

std::optional<FormatInfo> format_info(uint32_t fourcc);
// Formats that shm buffers may use with this renderer (ARGB8888 and XRGB8888 first, as wl_shm requires).
std::span<const uint32_t> shm_formats();
const char* format_name(uint32_t fourcc);

constexpr uint32_t fourcc_code(char a, char b, char c, char d)
{
    return static_cast<uint32_t>(a) | (static_cast<uint32_t>(b) << 8) | (static_cast<uint32_t>(c) << 16) |
           (static_cast<uint32_t>(d) << 24);
}

namespace fourcc {
constexpr uint32_t argb8888 = fourcc_code('A', 'R', '2', '4');
constexpr uint32_t xrgb8888 = fourcc_code('X', 'R', '2', '4');
constexpr uint32_t abgr8888 = fourcc_code('A', 'B', '2', '4');
constexpr uint32_t xbgr8888 = fourcc_code('X', 'B', '2', '4');
constexpr uint32_t rgb565 = fourcc_code('R', 'G', '1', '6');
// High depth: 10 bits a channel in a 32-bit word, or one half float a channel in 64 bits.
constexpr uint32_t xrgb2101010 = fourcc_code('X', 'R', '3', '0');
constexpr uint32_t argb2101010 = fourcc_code('A', 'R', '3', '0');
constexpr uint32_t xbgr2101010 = fourcc_code('X', 'B', '3', '0');
constexpr uint32_t abgr2101010 = fourcc_code('A', 'B', '3', '0');
constexpr uint32_t xbgr16161616f = fourcc_code('X', 'B', '4', 'H');
constexpr uint32_t abgr16161616f = fourcc_code('A', 'B', '4', 'H');
constexpr uint32_t nv12 = fourcc_code('N', 'V', '1', '2');
constexpr uint32_t nv16 = fourcc_code('N', 'V', '1', '6');
constexpr uint32_t yuv420 = fourcc_code('Y', 'U', '1', '2');
constexpr uint32_t yuv422 = fourcc_code('Y', 'U', '1', '6');
// NV12's layout with 16-bit samples, the 10 bits of each code in the high bits.
constexpr uint32_t p010 = fourcc_code('P', '0', '1', '0');
// Single-channel layouts a YUV plane is imported as; not offered to clients (not in the format table).
constexpr uint32_t r8 = fourcc_code('R', '8', ' ', ' ');
constexpr uint32_t gr88 = fourcc_code('G', 'R', '8', '8');
constexpr uint32_t r16 = fourcc_code('R', '1', '6', ' ');
constexpr uint32_t gr1616 = fourcc_code('G', 'R', '3', '2');
}  // namespace fourcc

}  // namespace kiln::renderer
