// Plain descriptions the renderer speaks in: boxes, colours, matrices, dma-buf and shm buffers, formats.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace kiln::renderer {

// How the EGL display was opened: GBM on a render node, an EGL device, or surfaceless (no dma-buf import).
enum class DisplayKind { gbm, device, surfaceless };

struct Box {
    int32_t x = 0;
    int32_t y = 0;
    int32_t width = 0;
    int32_t height = 0;
};

struct FBox {
    double x = 0;
    double y = 0;
    double width = 0;
    double height = 0;
};

// Premultiplied alpha.
struct Color {
    float r = 0;
    float g = 0;
    float b = 0;
    float a = 0;
};

enum class Filter { linear, nearest };

// Row-major 3x3; maps the unit square to target pixels, y down.
using Matrix3 = std::array<float, 9>;

constexpr uint32_t max_planes = 4;
// DRM_FORMAT_MOD_INVALID without pulling in drm headers everywhere.
constexpr uint64_t modifier_invalid = 0x00ffffffffffffffULL;
constexpr uint64_t modifier_linear = 0;

struct DmabufPlane {
    int fd = -1;  // borrowed, not owned
    uint32_t offset = 0;
    uint32_t stride = 0;
};

struct DmabufAttributes {
    int32_t width = 0;
    int32_t height = 0;
    uint32_t fourcc = 0;
    uint64_t modifier = modifier_invalid;
    uint32_t plane_count = 0;
    std::array<DmabufPlane, max_planes> planes{};
};

struct ShmDescription {
    uint32_t fourcc = 0;
    int32_t width = 0;
    int32_t height = 0;
    uint32_t stride = 0;
    const void* data = nullptr;
    // Bytes readable from `data` (the client's pool from the buffer's offset on); 0: unknown, only the stride is
    // checked against the width.
    size_t span = 0;
};

struct FormatModifier {
    uint32_t fourcc = 0;
    uint64_t modifier = modifier_invalid;
    bool external_only = false;
    // YUV the driver will not import whole: each plane is imported as R8/GR88 and kiln's shader converts it.
    bool through_planes = false;
};

}  // namespace kiln::renderer
