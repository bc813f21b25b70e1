// FifoV1: wp_fifo_manager_v1 (wlroots 0.15 lacks it): a content update with set_barrier sets a barrier on its
// surface once it is applied; the barrier clears once an output the surface is on has drawn a frame after it (when
// kiln sends that output's surfaces their frame callbacks: what they committed before is on screen); an update with wait_barrier is held back while a barrier
// is up, or while an earlier update that will set one is itself held. So each FIFO frame is shown for at least one
// refresh, none is skipped, and the client needs no frame-callback guessing (Mesa's Vulkan FIFO present mode).
//
// Holding uses wlroots' cached surface state (wlr_surface_lock_pending), as the acquire fences do: the commit and
// its frame callbacks wait together, and other clients go on. A surface on no output, or one whose outputs draw no
// frame, is not held for ever: the barrier also clears after a quarter of a second ("forward progress").
#pragma once

#include "compositor/listener.hpp"
#include "compositor/output/sync/surface_commit_hook.hpp"
#include "compositor/wlr.hpp"

#include <list>

namespace kiln::compositor {

class FifoV1 {
public:
    explicit FifoV1(wl_display* display);
    ~FifoV1();
    FifoV1(const FifoV1&) = delete;
    FifoV1& operator=(const FifoV1&) = delete;

    struct Fifo;

    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;
    static void get_fifo(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface) noexcept;
    void before_commit(wlr_surface* surface);
    // `output` drew a frame and sent its surfaces their frame callbacks: the barriers of the surfaces on it (or on
    // none) clear, on the next idle turn of the event loop.
    void frame_drawn(wlr_output* output);

private:
    void clear_barrier(Fifo& fifo);

    wl_display* display_;
    wl_global* global_;
    std::list<Fifo*> fifos_;
    SurfaceCommitHook hook_;
    wl_event_source* clear_later_ = nullptr;
};

}  // namespace kiln::compositor
