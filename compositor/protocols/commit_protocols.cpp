// CommitProtocols: the protocols told of commits and presentation, made in Server::start()'s order, and their --stats
// keys.
#include "compositor/protocols/commit_protocols.hpp"

#include "compositor/protocol_kit/request_hooks.hpp"

namespace kiln::compositor {

bool CommitProtocols::make(wl_display* display, wlr_backend* backend, RequestHooks& requests,
                           wlr_output_layout* layout, CommitGate& gate,
                           std::function<void(wlr_surface*)> alpha_changed, std::string& error)
{
    presentation = std::make_unique<PresentationTime>(display, wlr_backend_get_presentation_clock(backend),
                                                      gate);
    if (!presentation->ok()) {
        error = "cannot create wp_presentation";
        return false;
    }
    surface_protocols = std::make_unique<SurfaceProtocols>(display, requests, gate, layout);
    color_representation = std::make_unique<ColorRepresentationV1>(display, requests, alpha_changed);
    color_manager = std::make_unique<ColorManagerV1>(display, layout, alpha_changed);
    alpha_modifier = std::make_unique<AlphaModifierV1>(display, std::move(alpha_changed));
    return true;
}

std::function<float(wlr_surface*)> CommitProtocols::surface_alpha() const
{
    return [&alpha = alpha_modifier](wlr_surface* s) { return alpha ? alpha->alpha(s) : 1.0f; };
}

std::function<renderer::YuvEncoding(wlr_surface*)> CommitProtocols::surface_yuv() const
{
    return [&colour = color_representation](wlr_surface* s) {
        return colour ? colour->yuv_encoding(s) : renderer::YuvEncoding{};
    };
}

std::function<renderer::SurfaceColour(wlr_surface*)> CommitProtocols::surface_colour() const
{
    return [&colour = color_manager](wlr_surface* s) {
        return colour ? colour->surface_colour(s) : renderer::SurfaceColour{};
    };
}

void CommitProtocols::hook_outputs(OutputHooks& hooks) const
{
    hooks.latched = [&surfaces = surface_protocols](wlr_output* output, std::span<const LatchedSurface> s) {
        if (surfaces)
            surfaces->latched(output, s);
    };
    hooks.composing = [&surfaces = surface_protocols](wlr_output* o, int64_t at) {
        if (surfaces)
            surfaces->composing(o, at);
    };
    hooks.presented = [&surfaces = surface_protocols](wlr_output* o, int64_t at, int64_t period) {
        if (surfaces)
            surfaces->presented(o, at, period);
    };
}

void CommitProtocols::report(Stats& stats) const
{
    if (surface_protocols)
        surface_protocols->report(stats);
    if (color_manager)
        color_manager->report(stats);
}

}  // namespace kiln::compositor
