// ImplicitFences: a dma-buf commit waits in the commit gate until the buffer's implicit write fences have signalled,
// so no frame shows unfinished pixels (surfaces on explicit sync are left to their syncobj acquire points).
#pragma once

#include "compositor/output/sync/commit_gate.hpp"

#include <functional>

namespace kiln::compositor {

class ImplicitFences {
public:
    // A source of `gate`'s for its life; `loop` polls the fences.
    ImplicitFences(CommitGate& gate, wl_event_loop* loop);
    ImplicitFences(const ImplicitFences&) = delete;
    ImplicitFences& operator=(const ImplicitFences&) = delete;

    // Surfaces that use explicit sync (linux-drm-syncobj): their implicit fences are not waited for.
    void set_explicit_sync(std::function<bool(wlr_surface*)> is_explicit) { is_explicit_ = std::move(is_explicit); }

private:
    void before_commit(wlr_surface* surface);

    CommitGate& gate_;
    wl_event_loop* loop_;
    std::function<bool(wlr_surface*)> is_explicit_;
    CommitGate::Source source_;
};

}  // namespace kiln::compositor
