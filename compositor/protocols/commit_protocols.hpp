// CommitProtocols: when clients' commits apply and what is told of them (the commit gate, the fence events the
// output frames wait on, wp_presentation, the surface protocols, alpha-modifier), owned here and made in
// Server::start()'s order. Their declaration order below is their teardown order; Server declares this group before
// the output list, which it outlives.
#pragma once

#include "compositor/output/fence_events.hpp"
#include "compositor/output/output_hooks.hpp"
#include "compositor/output/sync/buffer_releases.hpp"
#include "compositor/output/sync/commit_gate.hpp"
#include "compositor/protocols/surface/alpha_modifier_v1.hpp"
#include "compositor/protocols/surface/presentation_time.hpp"
#include "compositor/protocols/surface_protocols.hpp"
#include "compositor/stats.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <memory>
#include <string>

namespace kiln::compositor {

class RenderBridge;
class RequestHooks;

// The rooms, owned: destroyed in reverse declaration order, after the output list (Server's order).
struct CommitProtocols {
    CommitProtocols() = default;
    CommitProtocols(const CommitProtocols&) = delete;
    CommitProtocols& operator=(const CommitProtocols&) = delete;

    std::unique_ptr<FenceEvents> fence_events;         // after the outputs whose frames it watched
    std::unique_ptr<AlphaModifierV1> alpha_modifier;  // after the outputs whose frames ask it
    // Fences, syncobj points, FIFO and commit timing hold commits here: it outlives every source of them (the
    // buffer protocols' implicit fences and explicit sync are destroyed before this group, Server's order).
    std::unique_ptr<CommitGate> commit_gate;
    // Every committed buffer's release (output/sync/buffer_releases.hpp): the outputs' frames and explicit sync find
    // them here, so it outlives both; its frame pacing is a source of the gate, which outlives it. Shared only so
    // the bridge's textures can tell it of their end while it lives (a weak_ptr), however late they go.
    std::shared_ptr<BufferReleases> releases;
    // Outlives the output list: an Output going away tells commit timing (a destroyed member cannot be read, even
    // to see that it is null). Fractional-scale listens to the layout.
    std::unique_ptr<SurfaceProtocols> surface_protocols;
    // Feedback kept with held commits (a source of the gate, which outlives it); the outputs take it from here, so
    // it outlives them too.
    std::unique_ptr<PresentationTime> presentation;

    // The fence events, the commit gate, whose commit watch registers into `requests`, and the buffers' releases,
    // which `bridge` tells of the client buffers it reads in place.
    void make_gate(wl_display* display, RequestHooks& requests, RenderBridge& bridge);
    // Once the scene and layout exist: wp_presentation, the surface protocols and alpha-modifier, whose new factor
    // `alpha_changed` tells; false (with `error`) when wp_presentation cannot be made.
    bool make(wl_display* display, wlr_backend* backend, RequestHooks& requests, wlr_output_layout* layout,
              std::function<void(wlr_surface*)> alpha_changed, std::string& error);
    // Each surface's alpha-modifier factor, 1 without the protocol (read at each call, so after it is gone too).
    std::function<float(wlr_surface*)> surface_alpha() const;
    // Points `hooks`' latched, composing and presented at the surface protocols (FIFO, commit timing).
    void hook_outputs(OutputHooks& hooks) const;
    // The surface protocols' keys, the implicit fences' acquire waits (fences.acquire_*) and the releases
    // (buffers.released_*).
    void report(Stats& stats) const;
};

}  // namespace kiln::compositor
