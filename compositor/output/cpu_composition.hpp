// CPU composition of an output frame: whether a frame's visible set can be composed with pixman straight into the
// output buffer's memory, and doing it (background, windows and solid rectangles per damage rectangle, software
// cursors).
#pragma once

#include "compositor/output/region.hpp"
#include "compositor/output/visible_set.hpp"
#include "compositor/wlr.hpp"
#include "renderer/types.hpp"

namespace kiln::compositor {

// True when every surface on the output and every software cursor maps 1:1 from a CPU copy (unscaled, untransformed shm windows and cursors) and
// `target` is memory pixman can write; anything else (a dma-buf, a scaled or rotated surface) goes to GL.
bool can_compose_on_cpu(const VisibleSet& visible, wlr_output* output, wlr_buffer* target);

// Composes `damage` of the frame into `target`'s memory; false if the buffer could not be mapped.
bool compose_on_cpu(const VisibleSet& visible, wlr_output* output, wlr_buffer* target, const Region& damage,
                    renderer::Color background);

}  // namespace kiln::compositor
