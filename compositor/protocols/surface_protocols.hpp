// SurfaceProtocols: the protocols that only add state to a wl_surface (how it is cropped and scaled, single-pixel
// buffers, preferred scale, FIFO and timed commits, content-type and tearing hints), made together in the order
// clients see their globals. A new protocol of that kind is added here, not in Server.
#pragma once

#include "compositor/output/output_hooks.hpp"
#include "compositor/protocol_kit/request_hooks.hpp"
#include "compositor/stats.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <memory>
#include <span>

namespace kiln::compositor {

class CommitGate;
class CommitTimingV1;
class ContentTypeV1;
class FifoV1;
class FractionalScaleV1;
class SinglePixelBufferV1;
class TearingControlV1;
class Viewporter;

class SurfaceProtocols {
public:
    // Their globals on `display`; viewporter's commit checks register into `requests`, FIFO and commit timing hold
    // commits in `gate`. `gate` and `layout` outlive this.
    SurfaceProtocols(wl_display* display, RequestHooks& requests, CommitGate& gate, wlr_output_layout* layout);
    ~SurfaceProtocols();
    SurfaceProtocols(const SurfaceProtocols&) = delete;
    SurfaceProtocols& operator=(const SurfaceProtocols&) = delete;

    // An output's frame latched these surfaces' content: FIFO's barriers clear.
    void latched(wlr_output* output, std::span<const LatchedSurface> surfaces);
    // An output starts composing a frame for `at` (ns), and presented one at `at` with `period`: commit timing's
    // targets are let go against them.
    void composing(wlr_output* output, int64_t at);
    void presented(wlr_output* output, int64_t at, int64_t period);
    void report(Stats& stats) const;

private:
    // In the order their globals are made; none uses another, so any teardown order would do (all go before the
    // commit gate).
    std::unique_ptr<Viewporter> viewporter_;
    std::unique_ptr<SinglePixelBufferV1> single_pixel_buffer_;
    std::unique_ptr<FractionalScaleV1> fractional_scale_;  // listens to the layout
    std::unique_ptr<FifoV1> fifo_;
    std::unique_ptr<CommitTimingV1> commit_timing_;
    std::unique_ptr<ContentTypeV1> content_type_;
    std::unique_ptr<TearingControlV1> tearing_control_;
};

}  // namespace kiln::compositor
