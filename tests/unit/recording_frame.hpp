// RecordingFrame: a renderer::Frame that draws nothing and records every call, for unit tests of what the frame
// pipeline asks a renderer to draw (no EGL, no pixels).
#pragma once

#include "compositor/region.hpp"
#include "renderer/frame.hpp"

#include <pixman.h>

#include <vector>

namespace kiln::test {

struct RecordedCall {
    enum class Kind { clear, solid, texture };
    Kind kind = Kind::clear;
    renderer::Color color{};            // clear and solid
    renderer::TextureHandle texture{};  // texture
    renderer::Box box{};                // solid and texture: the whole destination box
    renderer::FBox source{};
    renderer::Filter filter = renderer::Filter::linear;
    float alpha = 1.0f;
    renderer::SurfaceColour colour{};    // texture
    std::vector<renderer::Box> opaque;   // clear: the boxes cleared
    std::vector<renderer::Box> blended;
};

class RecordingFrame final : public renderer::Frame {
public:
    void clear(std::span<const renderer::Box> boxes, renderer::Color color) override
    {
        RecordedCall call;
        call.color = color;
        call.opaque.assign(boxes.begin(), boxes.end());
        calls.push_back(std::move(call));
    }
    void draw_solid(const renderer::SolidDraw& draw) override
    {
        RecordedCall call;
        call.kind = RecordedCall::Kind::solid;
        call.color = draw.color;
        call.box = draw.box;
        call.opaque.assign(draw.opaque.begin(), draw.opaque.end());
        call.blended.assign(draw.blended.begin(), draw.blended.end());
        calls.push_back(std::move(call));
    }
    void draw_texture(const renderer::TextureDraw& draw) override
    {
        RecordedCall call;
        call.kind = RecordedCall::Kind::texture;
        call.texture = draw.texture;
        call.box = draw.box;
        call.source = draw.source;
        call.filter = draw.filter;
        call.alpha = draw.alpha;
        call.colour = draw.colour;
        call.opaque.assign(draw.opaque.begin(), draw.opaque.end());
        call.blended.assign(draw.blended.begin(), draw.blended.end());
        calls.push_back(std::move(call));
    }
    std::shared_ptr<renderer::RenderFence> finish() override
    {
        ++finished;
        return nullptr;
    }

    std::vector<RecordedCall> calls;
    int finished = 0;
};

// The boxes a call recorded, as one region, and region equality: what the tests compare.
inline compositor::Region region_of(const std::vector<renderer::Box>& boxes)
{
    compositor::Region r;
    for (const auto& b : boxes)
        pixman_region32_union_rect(r.get(), r.get(), b.x, b.y, static_cast<unsigned>(b.width),
                                   static_cast<unsigned>(b.height));
    return r;
}

inline bool same(const compositor::Region& a, const compositor::Region& b)
{
    return pixman_region32_equal(const_cast<pixman_region32_t*>(a.get()), const_cast<pixman_region32_t*>(b.get()));
}

}  // namespace kiln::test
