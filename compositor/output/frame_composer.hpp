// compose_frame: a culled visible set turned into one frame's draw calls (the background where nothing opaque
// covers the damage, then every node bottom to top, its opaque part unblended and the rest blended, per rectangle).
#pragma once

#include "compositor/bridge/texture_handle.hpp"
#include "compositor/output/visible_set.hpp"
#include "renderer/frame.hpp"

namespace kiln::compositor {

struct ComposeParams {
    const float* output_matrix = nullptr;  // wlr_output::transform_matrix: output buffer pixels onto the target
    renderer::Color background{};
    // The naive reference frame (options' full_redraw): linear sampling everywhere, as a compositor that knows
    // nothing of exact texel mapping would.
    bool full_redraw = false;
};

void compose_frame(const VisibleSet& visible, const ComposeParams& params, renderer::Frame& frame);

}  // namespace kiln::compositor
