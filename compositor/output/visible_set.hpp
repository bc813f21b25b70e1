// VisibleSet: what one output frame must draw, culled front to back: each surface keeps only the part of the
// damage that no opaque surface above it covers, split into an opaque part (drawn without blending) and the rest.
#pragma once

#include "compositor/output/region.hpp"
#include "compositor/wlr.hpp"

#include <vector>

namespace kiln::compositor {

struct VisibleSurface {
    wlr_surface* surface = nullptr;
    wlr_texture* texture = nullptr;
    wlr_box box{};                   // output buffer coordinates
    wlr_fbox source{};               // buffer coordinates
    wl_output_transform transform = WL_OUTPUT_TRANSFORM_NORMAL;  // how the buffer maps onto the box
    bool exact = false;              // texels map 1:1 onto pixels: NEAREST sampling is exact
    bool fully_opaque = false;       // the whole box is opaque (opaque format or opaque region)
    Region opaque;                   // to draw, blending off
    Region blended;                  // to draw, blending on
};

class VisibleSet {
public:
    // Walks the scene's enabled surface nodes that overlap the output at layout (ox, oy) of size width × height.
    // Without `cull`, every surface is drawn whole with blending on: the naive reference the culled frames must equal.
    void build(wlr_scene* scene, wlr_output* output, int ox, int oy, const Region& damage, bool cull = true);

    // Bottom to top, only surfaces with something to draw.
    const std::vector<VisibleSurface>& draws() const { return draws_; }
    std::vector<VisibleSurface>& draws() { return draws_; }
    // Every surface overlapping the output and not wholly under opaque surfaces (for frame callbacks and
    // presentation feedback), bottom to top.
    const std::vector<VisibleSurface>& on_output() const { return on_output_; }
    // Damage no opaque surface covers: cleared to the background.
    const Region& background() const { return background_; }
    // Surfaces overlapping the damage but wholly hidden under opaque surfaces: not drawn at all.
    size_t culled() const { return culled_; }

private:
    std::vector<VisibleSurface> on_output_;
    std::vector<VisibleSurface> draws_;
    Region background_;
    size_t culled_ = 0;
};

}  // namespace kiln::compositor
