// Frame: the drawing interface one output frame goes through (clear, solid rectangles, textures split into opaque
// and blended parts of the damage, finish → fence), implemented by GL (compositor/bridge/gl_frame), CPU composition
// (compositor/output/cpu_composition) and the unit tests' recording fake; plain types only.
#pragma once

#include "renderer/colour/image_description.hpp"
#include "renderer/types.hpp"
#include "renderer/yuv.hpp"

#include <memory>
#include <span>

namespace kiln::renderer {

class RenderFence;

// A texture as the frame's caller knows it: an opaque key each implementation maps to its own texture.
struct TextureHandle {
    const void* id = nullptr;
    bool operator==(const TextureHandle&) const = default;
};

// Regions are lists of disjoint boxes in the target's pixels, already cut to the frame's damage: an implementation
// draws inside them and nowhere else, one rectangle at a time.
struct SolidDraw {
    Color color;                   // premultiplied
    Box box;                       // the whole rectangle, target pixels
    Matrix3 matrix{};              // the unit square onto `box` (with the target's transform)
    std::span<const Box> opaque;   // drawn with blending off
    std::span<const Box> blended;  // drawn with blending on
};

struct TextureDraw {
    TextureHandle texture;
    FBox source;                   // texels, buffer coordinates
    Box box;                       // where the texture lands, target pixels
    Matrix3 matrix{};              // the unit square onto `box` (with the buffer's and the target's transforms)
    std::span<const Box> opaque;   // drawn with blending off
    std::span<const Box> blended;  // drawn with blending on
    Filter filter = Filter::linear;  // nearest where texels map 1:1 onto pixels
    float alpha = 1.0f;            // multiplies the texture's alpha (per-surface opacity)
    YuvEncoding yuv{};             // a YCbCr texture's coefficients and range (per surface); others ignore it
    SurfaceColour colour{};        // what the pixels mean (color-management-v1); unset: sRGB, drawn as today
};

class Frame {
public:
    virtual ~Frame() = default;
    // Fills these boxes with `color` (not premultiplied: the output's background).
    virtual void clear(std::span<const Box> boxes, Color color) = 0;
    virtual void draw_solid(const SolidDraw& draw) = 0;
    virtual void draw_texture(const TextureDraw& draw) = 0;
    // Ends the frame. The fence signals when its pixels are done; nullptr when they are done already.
    virtual std::shared_ptr<RenderFence> finish() = 0;
};

}  // namespace kiln::renderer
