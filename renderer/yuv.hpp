// YUV in kiln's own shaders: colour encodings (BT.601/BT.709/BT.2020, limited/full range), their YCbCr-to-RGB conversion,
// and how a multi-plane buffer splits into single-channel planes (R8 luma, GR88 or R8 chroma) sampled one by one.
#pragma once

#include "renderer/types.hpp"

#include <array>
#include <cstdint>
#include <optional>

namespace kiln::renderer {

enum class YuvColorSpace { bt601, bt709, bt2020 };
enum class YuvRange { limited, full };

// How a buffer's YCbCr values map to RGB. linux-dmabuf cannot say (color-representation-v1 can, per surface), so the
// default is what most producers assume.
struct YuvEncoding {
    YuvColorSpace space = YuvColorSpace::bt601;
    YuvRange range = YuvRange::limited;
    bool operator==(const YuvEncoding&) const = default;
};

const char* yuv_encoding_name(YuvEncoding encoding);

// rgb = matrix * ((y, cb, cr) - offset), all in 0..1 as the GPU samples 8-bit values. Row-major.
struct YuvConversion {
    Matrix3 matrix{};
    std::array<float, 3> offset{};
};

YuvConversion yuv_conversion(YuvEncoding encoding);

// One plane of a YUV buffer as a single-plane dma-buf of its own.
struct YuvPlane {
    uint32_t fourcc = 0;  // fourcc::r8 or fourcc::gr88 (Cb in R, Cr in G)
    int32_t width = 0;    // in samples of this plane: chroma sizes round up for odd luma sizes
    int32_t height = 0;
};

// How kiln's shaders sample a YUV format: luma plus one interleaved chroma plane, or luma plus Cb and Cr planes.
enum class YuvShape { semiplanar, planar };

struct YuvLayout {
    YuvShape shape = YuvShape::semiplanar;
    uint32_t plane_count = 0;
    std::array<YuvPlane, 3> planes{};
    // Scales a luma texture coordinate (0..1 across the picture) to the chroma planes' 0..1: with an odd luma size
    // the last chroma sample covers one luma column (row) only, so the chroma plane reaches past the picture.
    float chroma_scale_x = 1.0f;
    float chroma_scale_y = 1.0f;
};

// The plane layout of a YUV format kiln converts itself (NV12, NV16, YUV420, YUV422), or nullopt.
std::optional<YuvLayout> yuv_layout(uint32_t fourcc, int32_t width, int32_t height);

// The dma-buf description of plane `index` of `whole` on its own, as `layout` says it is sampled.
DmabufAttributes yuv_plane_attributes(const DmabufAttributes& whole, const YuvLayout& layout, uint32_t index);

}  // namespace kiln::renderer
