// Capture drawing for ext-image-copy-capture: an output's scene, one window's scene tree alone, or a cursor image,
// drawn through kiln's renderer (GlFrame) into a client's buffer, only inside the damage, and copied into the
// buffer's memory there.
#pragma once

#include "compositor/region.hpp"
#include "compositor/wlr.hpp"
#include "renderer/colour/image_description.hpp"
#include "renderer/types.hpp"
#include "renderer/yuv.hpp"

#include <functional>
#include <memory>

namespace kiln::compositor {

class RenderBridge;

// The output as `scene_output` shows it (the background where no window is), cursors drawn only with `cursors`;
// `damage` in the output's buffer pixels. False if the buffer cannot be drawn into.
// `looks`: how output frames draw each surface's pixels, applied alike here.
struct SurfaceLooks {
    std::function<float(wlr_surface*)> alpha;                  // alpha-modifier's factor; unset: 1
    std::function<renderer::YuvEncoding(wlr_surface*)> yuv;    // color-representation's; unset: the default
    std::function<renderer::SurfaceColour(wlr_surface*)> colour;  // color-management's; unset: sRGB
    // The output's own description (OutputColours), so its capture holds what it shows; unset or null: sRGB.
    std::function<std::shared_ptr<const renderer::ImageDescription>(const wlr_output*)> output;
};

bool capture_output(RenderBridge& bridge, wlr_scene_output* scene_output, renderer::Color background,
                    const SurfaceLooks& looks, bool cursors, wlr_buffer* destination, const Region& damage);

// Everything in the scene tree `root` (a window: its surfaces, subsurfaces, popups) inside `area` (layout
// coordinates) at `scale`, on a transparent background: what covers it elsewhere in the scene is not drawn; then
// `cursor`, if given.
// A cursor image drawn over a window's capture (paint_cursors): where the image lands, buffer pixels.
struct CaptureCursor {
    wlr_texture* texture = nullptr;
    wlr_box box{};
};

bool capture_tree(RenderBridge& bridge, wlr_scene_node* root, const wlr_box& area, float scale,
                  const SurfaceLooks& looks, const CaptureCursor* cursor, wlr_buffer* destination,
                  const Region& damage);

// `texture` (a cursor image) at the buffer's top left, the rest transparent.
bool capture_texture(RenderBridge& bridge, wlr_texture* texture, wlr_buffer* destination);

}  // namespace kiln::compositor
