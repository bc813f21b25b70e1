// VisibleSet: what one output frame must draw, culled front to back: each surface, scene buffer or solid rectangle
// (server-side decorations' title text and frame) keeps only the part of the damage that nothing opaque above it covers, split into an
// opaque part (drawn without blending) and the rest.
#pragma once

#include "compositor/region.hpp"
#include "compositor/wlr.hpp"
#include "renderer/colour/image_description.hpp"
#include "renderer/types.hpp"
#include "renderer/yuv.hpp"

#include <functional>
#include <vector>

namespace kiln::compositor {

struct VisibleNode {
    wlr_surface* surface = nullptr;  // null for a scene buffer (kiln's own pixels) or a solid rectangle
    wlr_texture* texture = nullptr;  // null for a solid rectangle
    renderer::Color color{};         // a solid rectangle's, premultiplied (as wlr_scene_rect holds it)
    wlr_box box{};                   // output buffer coordinates
    wlr_fbox source{};               // buffer coordinates
    wl_output_transform transform = WL_OUTPUT_TRANSFORM_NORMAL;  // how the buffer maps onto the box
    bool exact = false;              // texels map 1:1 onto pixels: NEAREST sampling is exact (always, for a rectangle)
    bool fully_opaque = false;       // the whole box is opaque (opaque format or opaque region, alpha 1)
    float alpha = 1.0f;              // multiplies the texture's pixels (alpha-modifier); below 1 nothing is opaque
    renderer::YuvEncoding yuv{};     // a YCbCr buffer's coefficients and range (color-representation)
    renderer::SurfaceColour colour{};  // its colour description (color-management); null: sRGB
    Region opaque;                   // to draw, blending off
    Region blended;                  // to draw, blending on
};

class VisibleSet {
public:
    // Walks the scene's enabled surface, buffer and rectangle nodes that overlap the output at layout (ox, oy); a
    // buffer node's texture is made with `renderer` the first time. Without `cull`, everything is drawn whole with
    // blending on: the naive reference the culled frames must equal.
    void build(wlr_scene* scene, wlr_output* output, wlr_renderer* renderer, int ox, int oy, const Region& damage,
               bool cull = true);

    // Each surface's opacity factor (alpha-modifier-v1), 0 to 1; none set: 1.
    void set_surface_alpha(std::function<float(wlr_surface*)> alpha) { surface_alpha_ = std::move(alpha); }
    // Each surface's YCbCr coefficients and range (color-representation-v1); none set: the renderer's default.
    void set_surface_yuv(std::function<renderer::YuvEncoding(wlr_surface*)> yuv) { surface_yuv_ = std::move(yuv); }
    // Each surface's colour description (color-management-v1); none set: sRGB.
    void set_surface_colour(std::function<renderer::SurfaceColour(wlr_surface*)> colour)
    {
        surface_colour_ = std::move(colour);
    }

    // Bottom to top, only nodes with something to draw.
    const std::vector<VisibleNode>& draws() const { return draws_; }
    std::vector<VisibleNode>& draws() { return draws_; }
    // Every node overlapping the output and not wholly under opaque ones (surfaces here get frame callbacks and
    // presentation feedback; any rectangle here rules out scan-out), bottom to top.
    const std::vector<VisibleNode>& on_output() const { return on_output_; }
    // Damage no opaque surface covers: cleared to the background.
    const Region& background() const { return background_; }
    // Nodes overlapping the damage but wholly hidden under opaque ones: not drawn at all.
    size_t culled() const { return culled_; }

private:
    // A node to draw: where its top-left corner falls in output pixels and its size in layout coordinates.
    struct Stacked {
        wlr_scene_node* node;
        wlr_box layout;  // x and y: output buffer pixels
    };

    // Kept between frames, as the two lists above: a frame allocates nothing once the scene stops growing.
    std::vector<Stacked> stack_;
    std::vector<VisibleNode> top_down_;
    std::vector<VisibleNode> on_output_;
    std::vector<VisibleNode> draws_;
    Region background_;
    size_t culled_ = 0;
    std::function<float(wlr_surface*)> surface_alpha_;
    std::function<renderer::YuvEncoding(wlr_surface*)> surface_yuv_;
    std::function<renderer::SurfaceColour(wlr_surface*)> surface_colour_;
};

}  // namespace kiln::compositor
