// Relative motion events from the cursor's relative moves.
#include "compositor/input/relative_pointer.hpp"

namespace kiln::compositor {

RelativePointer::RelativePointer(wl_display* display, wlr_seat* seat, wlr_cursor* cursor)
    : manager_(wlr_relative_pointer_manager_v1_create(display)), seat_(seat)  // freed with the display
{
    // Connected after the seat's own motion listener, so pointer focus is already where the move took it.
    // Absolute moves (tablets, nested pointers) have no relative motion to report.
    motion_.connect(&cursor->events.motion, [this](void* data) {
        auto* event = static_cast<wlr_event_pointer_motion*>(data);
        wlr_relative_pointer_manager_v1_send_relative_motion(manager_, seat_, uint64_t{event->time_msec} * 1000,
                                                             event->delta_x, event->delta_y, event->unaccel_dx,
                                                             event->unaccel_dy);
    });
}

}  // namespace kiln::compositor
