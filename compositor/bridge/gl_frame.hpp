// GlFrame: renderer::Frame drawn with kiln's GL renderer into an output ring buffer, software cursors included,
// ended with a fence (or glFinish where the display has no fence extension).
#pragma once

#include "compositor/region.hpp"
#include "compositor/wlr.hpp"
#include "renderer/colour/image_description.hpp"
#include "renderer/frame.hpp"

#include <memory>

namespace kiln::renderer {
class Renderer;
class RenderTarget;
}  // namespace kiln::renderer

namespace kiln::compositor {

class RenderBridge;

class GlFrame final : public renderer::Frame {
public:
    // Binds `buffer` (an output ring buffer, or a capture client's) and begins drawing into it; nullptr if it cannot
    // be drawn into. `damage` (output buffer pixels) is where `output`'s software cursors are drawn at finish();
    // without an output (a capture) none are. `colour`: what the buffer's pixels mean (an output's description, see
    // OutputColours), every surface converted onto it; null: sRGB. The renderer is shared, so each frame sets it.
    // `linear_light` (linear_light_frame()): the frame is composed in the renderer's FP16 intermediate and encoded
    // into the buffer over `damage` at finish(), before software cursors; `damage` must then be all the frame draws.
    static std::unique_ptr<GlFrame> begin(RenderBridge& bridge, wlr_buffer* buffer, wlr_output* output,
                                          const Region& damage, const renderer::ImageDescription* colour,
                                          bool linear_light = false);
    ~GlFrame() override;
    GlFrame(const GlFrame&) = delete;
    GlFrame& operator=(const GlFrame&) = delete;

    // The target is CPU memory GL draws into a copy of: its pixels must be read back (RenderBridge::read_back)
    // after the fence before anyone reads the buffer's memory.
    bool target_is_cpu() const;

    void clear(std::span<const renderer::Box> boxes, renderer::Color color) override;
    void draw_solid(const renderer::SolidDraw& draw) override;
    void draw_texture(const renderer::TextureDraw& draw) override;
    std::shared_ptr<renderer::RenderFence> finish() override;

private:
    GlFrame(RenderBridge& bridge, renderer::RenderTarget& target, wlr_output* output, const Region& damage)
        : bridge_(bridge), target_(target), output_(output), damage_(damage)
    {
    }
    // Ends the frame, flushed, and wlroots' rendering state (finish(), or the destructor if never finished).
    void end();

    RenderBridge& bridge_;
    renderer::RenderTarget& target_;
    wlr_output* output_;
    Region damage_;
    bool drawing_ = true;
};

}  // namespace kiln::compositor
