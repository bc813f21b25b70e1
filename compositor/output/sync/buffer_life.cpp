// BufferLife: the fence events, the commit gate and the releases, made in Server::start()'s order, and their keys.
#include "compositor/output/sync/buffer_life.hpp"

#include "compositor/bridge/render_bridge.hpp"
#include "compositor/protocol_kit/request_hooks.hpp"

namespace kiln::compositor {

void BufferLife::make(wl_display* display, RequestHooks& requests, RenderBridge& bridge)
{
    fence_events = std::make_unique<FenceEvents>(wl_display_get_event_loop(display));
    gate = std::make_unique<CommitGate>();
    gate->watch_commits(requests);
    releases = std::make_shared<BufferReleases>();
    bridge.textures().tell_in_place_reads(releases);
    // Where frames are composed on the CPU, shm buffers are read in place and a frame-paced client gets them back
    // with its frame callbacks.
    if (bridge.composition().cpu())
        releases->release_shm_with_frames(wl_display_get_event_loop(display), *gate);
}

void BufferLife::report(Stats& stats) const
{
    if (releases)
        releases->report(stats);
    if (gate) {
        using C = CommitGate::Condition;
        stats.set("fences.acquire_waits", gate->waits(C::implicit_fence));
        stats.set("fences.acquire_waiting", uint64_t{gate->waiting(C::implicit_fence)});
        stats.set("fences.acquire_wait_ms_p50", percentile(gate->wait_ms(C::implicit_fence), 0.5));
        stats.set("fences.acquire_wait_ms_p99", percentile(gate->wait_ms(C::implicit_fence), 0.99));
    }
}

}  // namespace kiln::compositor
