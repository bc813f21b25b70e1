// CPU composition of an output frame: whether a frame's visible set can be composed with pixman straight into the
// output buffer's memory, and the renderer::Frame that does it (background, windows and solid rectangles per damage
// rectangle, software cursors at finish).
#pragma once

#include "compositor/output/visible_set.hpp"
#include "compositor/region.hpp"
#include "compositor/wlr.hpp"
#include "renderer/colour/image_description.hpp"
#include "renderer/frame.hpp"
#include "renderer/types.hpp"

#include <memory>

namespace kiln::renderer {
struct CpuImage;
}  // namespace kiln::renderer

namespace kiln::compositor {

// True when `target` is memory pixman can write (mapped for writing, a format it has code for, whole 32-bit rows).
bool can_compose_into(wlr_buffer* target);

// True when every surface on the output and every software cursor maps 1:1 from a CPU copy (unscaled, untransformed shm windows and cursors) and
// `target` is memory pixman can write; anything else (a dma-buf EGL imported, a scaled or rotated surface, a surface
// whose colour description is not plain sRGB, an output whose `output_colour` is not: null is sRGB) goes to GL.
bool can_compose_on_cpu(const VisibleSet& visible, wlr_output* output, const renderer::ImageDescription* output_colour,
                        wlr_buffer* target);

// A frame composed into `target`'s memory (mapped until finish()), the output's software cursors drawn over
// `damage` at finish() (none with a null `output`: a capture draws its own); nullptr if the buffer could not be
// mapped. Textures must pass can_compose_on_cpu.
std::unique_ptr<renderer::Frame> begin_cpu_frame(wlr_output* output, wlr_buffer* target, const Region& damage);
// A frame composed into `image` (memory the caller keeps, mapped by nobody), drawing no cursor itself; nullptr if
// pixman cannot use it.
std::unique_ptr<renderer::Frame> begin_cpu_frame(const renderer::CpuImage& image, const Region& damage);

}  // namespace kiln::compositor
