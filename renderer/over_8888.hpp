// over_8888: premultiplied 32-bit source-over onto a 32-bit destination of the same channel order, computed in
// registers 8 pixels at a time where the CPU has AVX2, bit-identical to pixman's OVER (the CPU compositor's reference
// and fallback).
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::renderer {

// Whether over_8888() has a kernel on this CPU; without one the caller composes with pixman.
bool over_8888_available();

// dst = src + dst × (255 − src.alpha) / 255 per channel (rounded and saturated as pixman does), over a `width` ×
// `height` rectangle; strides in pixels. The fourth channel of an X destination is computed like an alpha (pixman's
// own paths disagree on it; nothing reads it). Returns false, touching nothing, where over_8888_available() is false.
bool over_8888(uint32_t* dst, size_t dst_stride, const uint32_t* src, size_t src_stride, int width, int height);

}  // namespace kiln::renderer
