// The renderer's shader programs, as sources the ProgramCache turns into linked programs.
#pragma once

#include "renderer/program_cache.hpp"

#include <array>
#include <cstdint>

namespace kiln::renderer {

// yuv_semiplanar: NV12/NV16 as R8 + GR88 planes (P010 as R16 + GR1616); yuv_planar: YUV420/YUV422 as three R8
// planes. *_straight and *_optical: RGBA/BGRA with color-representation's straight or premultiplied_optical alpha,
// turned into the premultiplied electrical values kiln blends.
enum class ShaderVariant {
    solid,
    rgba,
    rgbx,
    bgra,
    bgrx,
    external,
    yuv_semiplanar,
    yuv_planar,
    rgba_straight,
    bgra_straight,
    rgba_optical,
    bgra_optical,
    count
};

constexpr size_t shader_variant_count = static_cast<size_t>(ShaderVariant::count);

// Usage bits recorded in the precompile list: which pass uses a program.
constexpr uint32_t usage_solid = 1u << 0;
constexpr uint32_t usage_shm = 1u << 1;
constexpr uint32_t usage_dmabuf = 1u << 2;

const ProgramSource& shader_source(ShaderVariant variant);
// Every program the renderer may draw with, for precompiling and benchmarks.
std::array<const ProgramSource*, shader_variant_count> all_shader_sources();

// Attribute location every program binds its quad position to.
constexpr uint32_t position_attribute = 0;

}  // namespace kiln::renderer
