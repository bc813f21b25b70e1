// SeatFocus: what the shell asks of the seat (keyboard focus, the cursor and pointer state, who may have input,
// pointer grabs, a scene change under the pointer), so shell/ never sees the concrete Seat and its devices.
#pragma once

struct wlr_cursor;
struct wlr_seat;
struct wlr_surface;

namespace kiln::compositor {

class PointerGrab;

class SeatFocus {
public:
    // The wlr_seat, for its keyboard and pointer state (focused surface, buttons held, serials), and the cursor.
    virtual wlr_seat* wlr() const = 0;
    virtual wlr_cursor* cursor() const = 0;
    virtual void focus_keyboard(wlr_surface* surface) = 0;
    // Whether `surface` may have input: every surface, except while a client holds the input inhibitor (a lock
    // screen), when only that client's do.
    virtual bool input_allowed(wlr_surface* surface) const = 0;
    // The scene changed under the pointer (a view mapped, unmapped, moved, was raised or resized): the surface under
    // it is found again once this turn of the event loop is done.
    virtual void scene_changed() = 0;
    // Pointer motion and buttons go to `grab` (not to clients) until a button is released or it is cancelled.
    virtual void start_grab(PointerGrab& grab) = 0;
    // Ends `grab` without a release (its window went away).
    virtual void cancel_grab(PointerGrab& grab) = 0;

protected:
    ~SeatFocus() = default;
};

}  // namespace kiln::compositor
