// PointerGestures: zwp_pointer_gestures_v1: touchpad swipes, pinches and holds reach the surface under the pointer.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class PointerGestures {
public:
    PointerGestures(wl_display* display, wlr_seat* seat, wlr_cursor* cursor);
    PointerGestures(const PointerGestures&) = delete;
    PointerGestures& operator=(const PointerGestures&) = delete;

private:
    wlr_pointer_gestures_v1* gestures_;
    wlr_seat* seat_;

    wl::Listener swipe_begin_;
    wl::Listener swipe_update_;
    wl::Listener swipe_end_;
    wl::Listener pinch_begin_;
    wl::Listener pinch_update_;
    wl::Listener pinch_end_;
    wl::Listener hold_begin_;
    wl::Listener hold_end_;
};

}  // namespace kiln::compositor
