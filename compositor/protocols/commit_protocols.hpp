// CommitProtocols: the protocols told of commits and presentation (wp_presentation, the surface protocols,
// alpha-modifier, color-representation, color-management), owned here and made in Server::start()'s order over the commit gate of
// output/sync/buffer_life.hpp.
// Their declaration order below is their teardown order; Server declares this group after the buffers' life, which
// outlives it, and before the output list, which it outlives.
#pragma once

#include "compositor/output/output_hooks.hpp"
#include "compositor/output/sync/commit_gate.hpp"
#include "compositor/protocols/surface/alpha_modifier_v1.hpp"
#include "compositor/protocols/surface/color_management_v1.hpp"
#include "compositor/protocols/surface/color_representation_v1.hpp"
#include "compositor/protocols/surface/presentation_time.hpp"
#include "compositor/protocols/surface_protocols.hpp"
#include "compositor/stats.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <memory>
#include <string>

namespace kiln::compositor {

class RequestHooks;

// The rooms, owned: destroyed in reverse declaration order, after the output list (Server's order).
struct CommitProtocols {
    CommitProtocols() = default;
    CommitProtocols(const CommitProtocols&) = delete;
    CommitProtocols& operator=(const CommitProtocols&) = delete;

    std::unique_ptr<AlphaModifierV1> alpha_modifier;  // after the outputs whose frames ask it
    std::unique_ptr<ColorRepresentationV1> color_representation;  // likewise
    std::unique_ptr<ColorManagerV1> color_manager;                // likewise
    // Outlives the output list: an Output going away tells commit timing (a destroyed member cannot be read, even
    // to see that it is null). Fractional-scale listens to the layout.
    std::unique_ptr<SurfaceProtocols> surface_protocols;
    // Feedback kept with held commits (a source of the gate, which outlives it); the outputs take it from here, so
    // it outlives them too.
    std::unique_ptr<PresentationTime> presentation;

    // Once the scene and layout exist: wp_presentation and the surface protocols over `gate`, alpha-modifier,
    // color-representation and color-management, whose new values `alpha_changed` tells; false (with `error`) when wp_presentation cannot
    // be made.
    bool make(wl_display* display, wlr_backend* backend, RequestHooks& requests, wlr_output_layout* layout,
              CommitGate& gate, std::function<void(wlr_surface*)> alpha_changed, std::string& error);
    // Each surface's alpha-modifier factor, 1 without the protocol (read at each call, so after it is gone too).
    std::function<float(wlr_surface*)> surface_alpha() const;
    // Each surface's YCbCr coefficients and range (color-representation-v1), BT.601 limited where none is set.
    std::function<renderer::YuvEncoding(wlr_surface*)> surface_yuv() const;
    // Each surface's image description and render intent (color-management-v1); no description (sRGB) where none
    // is committed.
    std::function<renderer::SurfaceColour(wlr_surface*)> surface_colour() const;
    // Points `hooks`' latched, composing and presented at the surface protocols (FIFO, commit timing).
    void hook_outputs(OutputHooks& hooks) const;
    // The surface protocols' and color-management's keys.
    void report(Stats& stats) const;
};

}  // namespace kiln::compositor
