// PointerImplicitGrab: while a button pressed for a client is held, the pointer stays with the surface it was
// pressed on (or on no surface, when pressed on none): motion goes there in that surface's coordinates, wherever the
// pointer is, and the last release lets the pointer meet what is under it (wl_pointer.button's implicit grab).
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <vector>

namespace kiln::compositor {

class PointerImplicitGrab {
public:
    // `lost`: the held surface's scene node went (the surface destroyed or its window unmapped): the seat looks at
    // the scene again, and holding() then lets go.
    PointerImplicitGrab(wlr_seat* seat, std::function<void()> lost);
    PointerImplicitGrab(const PointerImplicitGrab&) = delete;
    PointerImplicitGrab& operator=(const PointerImplicitGrab&) = delete;

    // A press just went to the seat. The first starts a hold on the surface with the pointer focus, shown by
    // `node` (null with no focus: the press was on no surface, and the pointer then enters none while it lasts).
    // A focused surface without a node starts none: the pointer then follows the scene as it did. `device`: the
    // pointer the press came from (null for a tablet tool working the pointer).
    void pressed(uint32_t button, wlr_scene_node* node, const wlr_input_device* device);
    // A release just went to the seat: true when that was the last button held, and the hold is over.
    bool released();
    // Whether a hold has the pointer now. A hold whose surface is gone, hidden, or lost the pointer focus otherwise
    // (a session lock, an input inhibitor) ends here: its buttons are let go of quietly, and their releases, when
    // they come, reach no client (swallow). A wlroots pointer grab that started or ended since the press (an
    // xdg_popup grab, a drag) ends it too, its buttons left to that grab: a menu opened by a press gets the pointer
    // when it is under it, and the release on its item.
    bool holding();
    // The pointer at layout (lx, ly): a motion to the held surface in its own coordinates, which may be negative
    // or past its size; none when the point is where the surface last heard it was.
    void motion(double lx, double ly, uint32_t time_msec, bool frame);
    // A grab of kiln's (an interactive move or resize) took the pointer: the hold ends, and the buttons' releases
    // go through that grab.
    void cancel() { end(); }
    // A pointer device went: when it is the one whose press started the hold, no release will come, so the
    // hold's buttons are let go of quietly now; true when it was.
    bool device_gone(const wlr_input_device* device);
    // Whether the release of `button` belongs to a press whose surface went: no client hears it.
    bool swallow(uint32_t button);

private:
    void end();
    void forget();

    wlr_seat* seat_;
    std::function<void()> lost_;
    bool active_ = false;
    wlr_surface* surface_ = nullptr;  // null: held on no surface
    wlr_scene_node* node_ = nullptr;  // the held surface's node; null once it is destroyed
    const wlr_input_device* device_ = nullptr;  // whose press started the hold; compared, never used
    const wlr_seat_pointer_grab* grab_ = nullptr;  // the seat's pointer grab at the press; compared, never used
    std::vector<uint32_t> orphans_;   // buttons held for a surface that went, whose releases nobody hears

    wl::Listener node_destroy_;
};

}  // namespace kiln::compositor
