// The surface-state protocols, made in the order clients see their globals.
#include "compositor/protocols/surface_protocols.hpp"

#include "compositor/protocols/surface/commit_timing_v1.hpp"
#include "compositor/protocols/surface/content_type_v1.hpp"
#include "compositor/protocols/surface/fifo_v1.hpp"
#include "compositor/protocols/surface/fractional_scale_v1.hpp"
#include "compositor/protocols/buffers/single_pixel_buffer_v1.hpp"
#include "compositor/protocols/surface/tearing_control_v1.hpp"
#include "compositor/protocols/surface/viewporter.hpp"

namespace kiln::compositor {

SurfaceProtocols::SurfaceProtocols(wl_display* display, RequestHooks& requests, CommitGate& gate,
                                   wlr_output_layout* layout)
    : viewporter_(std::make_unique<Viewporter>(display, requests)),
      single_pixel_buffer_(std::make_unique<SinglePixelBufferV1>(display)),
      fractional_scale_(std::make_unique<FractionalScaleV1>(display, layout)),
      // FIFO presentation and timed commits (Mesa's Vulkan WSI): updates held back through wlroots' cached state.
      fifo_(std::make_unique<FifoV1>(display, gate)),
      commit_timing_(std::make_unique<CommitTimingV1>(display, gate)),
      content_type_(std::make_unique<ContentTypeV1>(display)),
      tearing_control_(std::make_unique<TearingControlV1>(display))  // a hint kept; kiln keeps vsync
{
}

SurfaceProtocols::~SurfaceProtocols() = default;

void SurfaceProtocols::latched(wlr_output* output, std::span<const LatchedSurface> surfaces)
{
    fifo_->latched(output, surfaces);
}

void SurfaceProtocols::composing(wlr_output* output, int64_t at)
{
    commit_timing_->composing(output, at);
}

void SurfaceProtocols::presented(wlr_output* output, int64_t at, int64_t period)
{
    commit_timing_->presented(output, at, period);
}

void SurfaceProtocols::report(Stats& stats) const
{
    stats.set("surfaces.content_type_photo", content_type_->surfaces_with(1));
    stats.set("surfaces.content_type_video", content_type_->surfaces_with(2));
    stats.set("surfaces.content_type_game", content_type_->surfaces_with(3));
    stats.set("surfaces.tearing_async", tearing_control_->surfaces_with(1));
}

}  // namespace kiln::compositor
