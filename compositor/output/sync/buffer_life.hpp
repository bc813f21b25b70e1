// BufferLife: the owner of a client buffer's life from commit to release — the fence events output frames wait on,
// the commit gate that holds a commit until its acquire point, FIFO barrier or target time, and every committed
// buffer's release. Server owns it ahead of the commit protocols and the output list, which it outlives; they, the
// buffer protocols and the outputs get references.
#pragma once

#include "compositor/output/fence_events.hpp"
#include "compositor/output/sync/buffer_releases.hpp"
#include "compositor/output/sync/commit_gate.hpp"
#include "compositor/stats.hpp"
#include "compositor/wlr.hpp"

#include <memory>

namespace kiln::compositor {

class RenderBridge;
class RequestHooks;

// Declaration order is teardown order, reversed: the releases go first, then the gate (whose sources they are),
// then the fence events the outputs' frames watched.
struct BufferLife {
    BufferLife() = default;
    BufferLife(const BufferLife&) = delete;
    BufferLife& operator=(const BufferLife&) = delete;

    std::unique_ptr<FenceEvents> fence_events;
    std::unique_ptr<CommitGate> gate;
    // Shared only so the bridge's textures can tell it of their end while it lives (a weak_ptr), however late they go.
    std::shared_ptr<BufferReleases> releases;

    // The fence events, the gate (whose commit watch registers into `requests`) and the releases, which `bridge`'s
    // textures tell of the client buffers they read in place.
    void make(wl_display* display, RequestHooks& requests, RenderBridge& bridge);
    // buffers.released_* and the implicit fences' acquire waits (fences.acquire_*).
    void report(Stats& stats) const;
};

}  // namespace kiln::compositor
