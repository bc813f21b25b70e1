// GlFrame: kiln's frame pipeline on GL. The buffer is bound through wlr_renderer (wlroots draws software cursors
// through it); the frame ends flushed, not finished: the pipeline fences it and reads back only what is consumed.
#include "compositor/bridge/gl_frame.hpp"

#include "compositor/bridge/render_bridge.hpp"
#include "compositor/bridge/texture_handle.hpp"
#include "compositor/log.hpp"
#include "renderer/colour/colour_pipeline.hpp"
#include "renderer/render_fence.hpp"
#include "renderer/renderer.hpp"

#include <GLES2/gl2.h>

#include <string>
#include <vector>

namespace kiln::compositor {

std::unique_ptr<GlFrame> GlFrame::begin(RenderBridge& bridge, wlr_buffer* buffer, wlr_output* output,
                                        const Region& damage, const renderer::ImageDescription* colour,
                                        bool linear_light)
{
    RenderBridge::set_memory_current(buffer, false);
    renderer::RenderTarget* target = bridge.render_target(buffer);
    if (!target)
        return nullptr;
    if (!wlr_renderer_begin_with_buffer(bridge.wlr(), buffer))
        return nullptr;
    renderer::Renderer& renderer = bridge.egl().renderer();
    renderer.set_output_colour(colour ? *colour : kiln::renderer::srgb_output());
    if (linear_light) {
        std::string why;
        if (!renderer.begin_linear(&why) && !why.empty())
            log::error("renderer: frames blend in the output's encoding, not in linear light: %s", why.c_str());
    }
    return std::unique_ptr<GlFrame>(new GlFrame(bridge, *target, output, damage));
}

GlFrame::~GlFrame()
{
    end();
}

bool GlFrame::target_is_cpu() const
{
    return target_.is_cpu();
}

void GlFrame::clear(std::span<const renderer::Box> boxes, renderer::Color color)
{
    renderer::Renderer& renderer = bridge_.egl().renderer();
    for (const auto& box : boxes) {
        renderer.set_scissor(box);
        renderer.clear(color);
    }
}

void GlFrame::draw_solid(const renderer::SolidDraw& draw)
{
    renderer::Renderer& renderer = bridge_.egl().renderer();
    renderer.set_blending(false);
    for (const auto& box : draw.opaque) {
        renderer.set_scissor(box);
        renderer.draw_solid(draw.color, draw.matrix);
    }
    renderer.set_blending(true);
    for (const auto& box : draw.blended) {
        renderer.set_scissor(box);
        renderer.draw_solid(draw.color, draw.matrix);
    }
}

void GlFrame::draw_texture(const renderer::TextureDraw& draw)
{
    renderer::Renderer& renderer = bridge_.egl().renderer();
    renderer::Texture& texture = ClientTextures::texture(from_handle(draw.texture));
    // The surface's coefficients and range: a uniform of kiln's YUV programs, so set per draw (a buffer may be shown
    // by two surfaces). A whole EGL image keeps those it was imported with (Texture::set_yuv_encoding).
    texture.set_yuv_encoding(draw.yuv);
    // One draw per damage rectangle: llvmpipe shades only the pixels inside the scissor.
    renderer.set_blending(false);
    for (const auto& box : draw.opaque) {
        renderer.set_scissor(box);
        renderer.draw_texture(texture, draw.source, draw.matrix, draw.alpha, draw.filter, draw.colour);
    }
    renderer.set_blending(true);
    for (const auto& box : draw.blended) {
        renderer.set_scissor(box);
        renderer.draw_texture(texture, draw.source, draw.matrix, draw.alpha, draw.filter, draw.colour);
    }
}

std::shared_ptr<renderer::RenderFence> GlFrame::finish()
{
    renderer::Renderer& renderer = bridge_.egl().renderer();
    if (renderer.composing_linear()) {
        // The intermediate holds this frame's pixels over its damage (every damaged pixel is cleared or drawn
        // opaque first): encode exactly those, so the buffer keeps its older pixels elsewhere.
        std::vector<kiln::renderer::Box> boxes;
        for (const auto& r : damage_.rects())
            boxes.push_back({r.x1, r.y1, r.x2 - r.x1, r.y2 - r.y1});
        renderer.end_linear(boxes);
    }
    renderer.set_scissor(std::nullopt);
    renderer.set_blending(true);
    // Cursors without a plane of their own (headless, some KMS drivers) are drawn into an output's frame.
    if (output_)
        wlr_output_render_software_cursors(output_, damage_.get());
    end();
    std::shared_ptr<renderer::RenderFence> fence = renderer::RenderFence::create(bridge_.egl().display());
    if (!fence)
        glFinish();  // no fence extension at all: the only way to know the frame is done
    return fence;
}

void GlFrame::end()
{
    if (!drawing_)
        return;
    drawing_ = false;
    bridge_.end_flushed();
    wlr_renderer_end(bridge_.wlr());
}

}  // namespace kiln::compositor
