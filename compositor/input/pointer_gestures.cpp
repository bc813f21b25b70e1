// PointerGestures: the cursor's gesture events, forwarded to the seat's pointer focus by wlroots' gestures global.
#include "compositor/input/pointer_gestures.hpp"

namespace kiln::compositor {

PointerGestures::PointerGestures(wl_display* display, wlr_seat* seat, wlr_cursor* cursor)
    : gestures_(wlr_pointer_gestures_v1_create(display)), seat_(seat)
{
    swipe_begin_.connect(&cursor->events.swipe_begin, [this](void* data) {
        auto* e = static_cast<wlr_event_pointer_swipe_begin*>(data);
        wlr_pointer_gestures_v1_send_swipe_begin(gestures_, seat_, e->time_msec, e->fingers);
    });
    swipe_update_.connect(&cursor->events.swipe_update, [this](void* data) {
        auto* e = static_cast<wlr_event_pointer_swipe_update*>(data);
        wlr_pointer_gestures_v1_send_swipe_update(gestures_, seat_, e->time_msec, e->dx, e->dy);
    });
    swipe_end_.connect(&cursor->events.swipe_end, [this](void* data) {
        auto* e = static_cast<wlr_event_pointer_swipe_end*>(data);
        wlr_pointer_gestures_v1_send_swipe_end(gestures_, seat_, e->time_msec, e->cancelled);
    });
    pinch_begin_.connect(&cursor->events.pinch_begin, [this](void* data) {
        auto* e = static_cast<wlr_event_pointer_pinch_begin*>(data);
        wlr_pointer_gestures_v1_send_pinch_begin(gestures_, seat_, e->time_msec, e->fingers);
    });
    pinch_update_.connect(&cursor->events.pinch_update, [this](void* data) {
        auto* e = static_cast<wlr_event_pointer_pinch_update*>(data);
        wlr_pointer_gestures_v1_send_pinch_update(gestures_, seat_, e->time_msec, e->dx, e->dy, e->scale,
                                                  e->rotation);
    });
    pinch_end_.connect(&cursor->events.pinch_end, [this](void* data) {
        auto* e = static_cast<wlr_event_pointer_pinch_end*>(data);
        wlr_pointer_gestures_v1_send_pinch_end(gestures_, seat_, e->time_msec, e->cancelled);
    });
    hold_begin_.connect(&cursor->events.hold_begin, [this](void* data) {
        auto* e = static_cast<wlr_event_pointer_hold_begin*>(data);
        wlr_pointer_gestures_v1_send_hold_begin(gestures_, seat_, e->time_msec, e->fingers);
    });
    hold_end_.connect(&cursor->events.hold_end, [this](void* data) {
        auto* e = static_cast<wlr_event_pointer_hold_end*>(data);
        wlr_pointer_gestures_v1_send_hold_end(gestures_, seat_, e->time_msec, e->cancelled);
    });
}

}  // namespace kiln::compositor
