// FifoV1: wp_fifo_manager_v1 (wlroots 0.15 lacks it): its objects and their validation. Each commit's set_barrier
// and wait_barrier go to FifoBarriers (output/sync/fifo_barriers.hpp), which holds updates through the commit gate:
// a barrier set by an applied update clears at the next latching deadline, and an update with wait_barrier waits
// for it, so each FIFO frame is shown for at least one refresh, none is skipped, and the client needs no
// frame-callback guessing (Mesa's Vulkan FIFO present mode).
#pragma once

#include "compositor/output/sync/commit_gate.hpp"
#include "compositor/output/sync/fifo_barriers.hpp"
#include "compositor/protocol_kit/per_surface_object.hpp"
#include "compositor/wlr.hpp"

#include <span>

namespace kiln::compositor {

class FifoV1 {
public:
    FifoV1(wl_display* display, CommitGate& gate);
    FifoV1(const FifoV1&) = delete;
    FifoV1& operator=(const FifoV1&) = delete;

    // An output latched these surface states for presentation (see FifoBarriers::latched).
    void latched(wlr_output* output, std::span<const FifoBarriers::Latched> states)
    {
        barriers_.latched(output, states);
    }

    // One wp_fifo_v1: the requests since its surface's last commit.
    struct Fifo : PerSurfaceObject {
        bool set_pending = false;   // set_barrier since the last commit
        bool wait_pending = false;  // wait_barrier since the last commit
    };

private:
    void before_commit(wlr_surface* surface);

    PerSurfaceObjects<Fifo> fifos_;
    ManagerGlobal global_;
    FifoBarriers barriers_;
    CommitGate::Source source_;
};

}  // namespace kiln::compositor
