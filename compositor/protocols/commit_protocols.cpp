// CommitProtocols: the commit gate and the protocols told of commits and presentation, made in Server::start()'s order,
// and their --stats keys.
#include "compositor/protocols/commit_protocols.hpp"

#include "compositor/bridge/render_bridge.hpp"
#include "compositor/protocol_kit/request_hooks.hpp"

namespace kiln::compositor {

void CommitProtocols::make_gate(wl_display* display, RequestHooks& requests, RenderBridge& bridge)
{
    fence_events = std::make_unique<FenceEvents>(wl_display_get_event_loop(display));
    commit_gate = std::make_unique<CommitGate>();
    commit_gate->watch_commits(requests);
    releases = std::make_shared<BufferReleases>();
    bridge.textures().tell_in_place_reads(releases);
    // Where frames are composed on the CPU, shm buffers are read in place and a frame-paced client gets them back
    // with its frame callbacks.
    if (bridge.composition().cpu())
        releases->release_shm_with_frames(wl_display_get_event_loop(display), *commit_gate);
}

bool CommitProtocols::make(wl_display* display, wlr_backend* backend, RequestHooks& requests,
                           wlr_output_layout* layout, std::function<void(wlr_surface*)> alpha_changed,
                           std::string& error)
{
    presentation = std::make_unique<PresentationTime>(display, wlr_backend_get_presentation_clock(backend),
                                                      *commit_gate);
    if (!presentation->ok()) {
        error = "cannot create wp_presentation";
        return false;
    }
    surface_protocols = std::make_unique<SurfaceProtocols>(display, requests, *commit_gate, layout);
    alpha_modifier = std::make_unique<AlphaModifierV1>(display, std::move(alpha_changed));
    return true;
}

std::function<float(wlr_surface*)> CommitProtocols::surface_alpha() const
{
    return [&alpha = alpha_modifier](wlr_surface* s) { return alpha ? alpha->alpha(s) : 1.0f; };
}

void CommitProtocols::hook_outputs(OutputHooks& hooks) const
{
    hooks.latched = [&surfaces = surface_protocols](wlr_output*, std::span<const LatchedSurface> s) {
        if (surfaces)
            surfaces->latched(s);
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
    if (releases)
        releases->report(stats);
    if (surface_protocols)
        surface_protocols->report(stats);
    if (commit_gate) {
        using C = CommitGate::Condition;
        stats.set("fences.acquire_waits", commit_gate->waits(C::implicit_fence));
        stats.set("fences.acquire_waiting", uint64_t{commit_gate->waiting(C::implicit_fence)});
        stats.set("fences.acquire_wait_ms_p50", percentile(commit_gate->wait_ms(C::implicit_fence), 0.5));
        stats.set("fences.acquire_wait_ms_p99", percentile(commit_gate->wait_ms(C::implicit_fence), 0.99));
    }
}

}  // namespace kiln::compositor
