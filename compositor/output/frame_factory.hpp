// begin_output_frame: the one renderer::Frame an output's frame is drawn with, made for the path chosen for it:
// composed on the CPU into the buffer's memory (cpu_composition.hpp) or drawn with GL (bridge/gl_frame.hpp).
#pragma once

#include "compositor/output/visible_set.hpp"
#include "compositor/region.hpp"
#include "compositor/wlr.hpp"
#include "renderer/frame.hpp"

#include <memory>

namespace kiln::compositor {

class RenderBridge;

struct OutputFrame {
    std::unique_ptr<renderer::Frame> frame;  // null if `buffer` could not be drawn into
    // GL draws into a copy of the buffer's CPU memory: its pixels must be read back after the fence before anyone
    // reads the buffer (RenderBridge::read_back).
    bool target_is_cpu = false;
};

// Whether a frame of `visible` onto an output described by `colour` (null: sRGB) is composed in linear light (an FP16
// intermediate, doc/colour.md): the output is not plain sRGB, or any node on it (drawn in this frame's damage or
// not: a frame's blending must not depend on what else is damaged) has a description that is not. An all-sRGB
// desktop on an sRGB output takes the direct path.
bool linear_light_frame(const VisibleSet& visible, const renderer::ImageDescription* colour);

// Begins drawing `output`'s frame into `buffer` (an output ring buffer) on the CPU (`on_cpu`: the frame passed
// can_compose_on_cpu) or with GL; `damage` (buffer pixels) is where software cursors are drawn at finish().
// `colour`: the output's description (null: sRGB; the CPU path only takes sRGB outputs). `linear_light`: GL composes
// it in linear light (linear_light_frame()).
OutputFrame begin_output_frame(RenderBridge& bridge, bool on_cpu, wlr_output* output, wlr_buffer* buffer,
                               const Region& damage, const renderer::ImageDescription* colour,
                               bool linear_light = false);

}  // namespace kiln::compositor
