// compose_frame: a culled visible set turned into one frame's draw calls (the background where nothing opaque
// covers the damage, then every node bottom to top, its opaque part unblended and the rest blended, per rectangle).
#pragma once

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

// The opaque key a frame gets for a wlroots texture, and back (for the implementations in output/ and bridge/).
inline renderer::TextureHandle texture_handle(wlr_texture* texture)
{
    return {texture};
}
inline wlr_texture* from_handle(renderer::TextureHandle handle)
{
    return static_cast<wlr_texture*>(const_cast<void*>(handle.id));
}

}  // namespace kiln::compositor
