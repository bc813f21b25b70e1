// YUV in kiln's own shaders: colour encodings (BT.601/BT.709/BT.2020, limited/full range, chroma siting), their
// YCbCr-to-RGB conversion at 8 or 10 bits, and how a multi-plane buffer splits into single-channel planes (R8 or R16
// luma, GR88, GR1616 or R8 chroma) sampled one by one.
#pragma once

#include "renderer/types.hpp"

#include <array>
#include <cstdint>
#include <optional>

namespace kiln::renderer {

enum class YuvColorSpace { bt601, bt709, bt2020 };
enum class YuvRange { limited, full };
// How a buffer's colour holds its alpha: premultiplied after the transfer function (what kiln blends), premultiplied
// in linear light before it, or not premultiplied. Sampling turns the other two into the first.
enum class AlphaMode { premultiplied_electrical, premultiplied_optical, straight };

// How a buffer's YCbCr values map to RGB, and how any buffer's alpha was applied. linux-dmabuf cannot say
// (color-representation-v1 can, per surface), so the default is what most producers assume.
struct YuvEncoding {
    YuvColorSpace space = YuvColorSpace::bt601;
    YuvRange range = YuvRange::limited;
    // Where each subsampled chroma sample sits, in luma samples right of and below the first luma sample it
    // covers (H.273 Chroma420SampleLocType: type 0 is 0, 0.5; type 2 is 0, 0). Centred (0.5, 0.5) unless told.
    float chroma_x = 0.5f;
    float chroma_y = 0.5f;
    AlphaMode alpha = AlphaMode::premultiplied_electrical;  // for formats with alpha, RGB ones
    bool operator==(const YuvEncoding&) const = default;
};

const char* yuv_encoding_name(YuvEncoding encoding);

// rgb = matrix * ((y, cb, cr) - offset), all in 0..1 as the GPU samples the planes (8-bit codes / 255, or 16-bit
// samples / 65535 holding 10-bit codes in their high bits). Row-major.
struct YuvConversion {
    Matrix3 matrix{};
    std::array<float, 3> offset{};
};

// `depth`: bits of each code, 8 (in 8-bit samples) or 10 (in the high bits of 16-bit samples, as P010 has them).
YuvConversion yuv_conversion(YuvEncoding encoding, uint32_t depth = 8);


// One plane of a YUV buffer as a single-plane dma-buf of its own.
struct YuvPlane {
    uint32_t fourcc = 0;  // fourcc::r8, r16, gr88 or gr1616 (Cb in R, Cr in G)
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
    uint32_t h_subsample = 2;
    uint32_t v_subsample = 1;
    uint32_t depth = 8;  // bits of each code (10: in the high bits of 16-bit samples)
};

// The plane layout of a YUV format kiln converts itself (NV12, NV16, YUV420, YUV422, P010), or nullopt.
std::optional<YuvLayout> yuv_layout(uint32_t fourcc, int32_t width, int32_t height);

// The shift of the chroma planes' sampling point, in luma texture coordinates (0..1 across a picture of
// `width` x `height`), for `encoding`'s siting: none for centred chroma, half a luma sample for co-sited.
std::array<float, 2> chroma_offset(YuvEncoding encoding, const YuvLayout& layout, int32_t width, int32_t height);

// The dma-buf description of plane `index` of `whole` on its own, as `layout` says it is sampled.
DmabufAttributes yuv_plane_attributes(const DmabufAttributes& whole, const YuvLayout& layout, uint32_t index);

}  // namespace kiln::renderer
