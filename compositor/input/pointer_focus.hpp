// PointerFocus: the surface under the pointer gets enter, motion and leave as the pointer moves, and again when the
// scene moves under a pointer that stays still (a window maps, unmaps, moves, is raised or resized, a popup opens
// or closes: every commit is watched here, the rest the shell tells through Seat::scene_changed); such changes are
// gathered into one update per turn of the event loop.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <memory>

namespace kiln::compositor {

class PointerFocus {
public:
    // `update` runs once the loop is idle after one or more changes, with the time in milliseconds.
    PointerFocus(wl_event_loop* loop, wlr_compositor* compositor, std::function<void(uint32_t)> update);
    ~PointerFocus();
    PointerFocus(const PointerFocus&) = delete;
    PointerFocus& operator=(const PointerFocus&) = delete;

    // The scene changed: update on the loop's next idle turn (once, however many changes came before it).
    void scene_changed();
    // Gives the pointer to the topmost surface at (lx, ly), as a real move there would; `frame` ends the events
    // with wl_pointer.frame (a device sends its own frame after a real move). With `only` (the client holding the
    // input inhibitor), a surface of any other client gets nothing: the pointer is then on no surface. The tree
    // `passed` (if any) is looked through, as if it were not there.
    static void focus_at(wlr_seat* seat, wlr_scene* scene, double lx, double ly, uint32_t time_msec, bool frame,
                         wl_client* only, wlr_scene_node* passed = nullptr);

private:
    class SurfaceWatch;

    wl_event_loop* loop_;
    std::function<void(uint32_t)> update_;
    wl_event_source* idle_ = nullptr;
    IndexedList<std::unique_ptr<SurfaceWatch>> surfaces_;  // one per wl_surface: removed in O(1)

    wl::Listener new_surface_;
};

}  // namespace kiln::compositor
