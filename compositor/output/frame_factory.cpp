// begin_output_frame: GlFrame or the CPU frame, by the path chosen for the frame.
#include "compositor/output/frame_factory.hpp"

#include "compositor/bridge/gl_frame.hpp"
#include "compositor/log.hpp"
#include "compositor/output/cpu_composition.hpp"
#include "renderer/colour/colour_pipeline.hpp"

namespace kiln::compositor {

bool linear_light_frame(const VisibleSet& visible, const renderer::ImageDescription* colour)
{
    if (colour && !colour->is_plain_srgb())
        return true;
    for (const VisibleNode& v : visible.on_output())
        if (v.texture && !renderer::is_plain(v.colour))
            return true;
    return false;
}

OutputFrame begin_output_frame(RenderBridge& bridge, bool on_cpu, wlr_output* output, wlr_buffer* buffer,
                               const Region& damage, const renderer::ImageDescription* colour, bool linear_light)
{
    OutputFrame out;
    if (on_cpu) {
        out.frame = begin_cpu_frame(output, buffer, damage);
        if (!out.frame)
            log::error("output %s: cannot map its buffer to compose on the CPU", output->name);
        return out;
    }
    std::unique_ptr<GlFrame> gl = GlFrame::begin(bridge, buffer, output, damage, colour, linear_light);
    if (!gl) {
        log::error("output %s: cannot draw into its buffer", output->name);
        return out;
    }
    out.target_is_cpu = gl->target_is_cpu();
    out.frame = std::move(gl);
    return out;
}

}  // namespace kiln::compositor
