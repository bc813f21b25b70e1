// FramedPointer: copies of the device's events, replayed on the cursor's signals at the frame.
#include "compositor/input/framed_pointer.hpp"

#include <type_traits>
#include <utility>

namespace kiln::compositor {

FramedPointer::FramedPointer(wlr_input_device* device, wlr_cursor* cursor) : cursor_(cursor)
{
    wlr_pointer* pointer = device->pointer;
    motion_.connect(&pointer->events.motion,
                    [this](void* data) { held_.emplace_back(*static_cast<wlr_event_pointer_motion*>(data)); });
    motion_absolute_.connect(&pointer->events.motion_absolute, [this](void* data) {
        held_.emplace_back(*static_cast<wlr_event_pointer_motion_absolute*>(data));
    });
    button_.connect(&pointer->events.button,
                    [this](void* data) { held_.emplace_back(*static_cast<wlr_event_pointer_button*>(data)); });
    axis_.connect(&pointer->events.axis,
                  [this](void* data) { held_.emplace_back(*static_cast<wlr_event_pointer_axis*>(data)); });
    frame_.connect(&pointer->events.frame, [this](void*) { flush(); });
}

void FramedPointer::flush()
{
    // Taken first: a handler may run the event loop's idle work, never this device's requests, but the queue is
    // left empty whatever happens below.
    std::vector<Event> events = std::move(held_);
    held_.clear();
    for (Event& event : events) {
        std::visit(
            [this](auto& e) {
                using T = std::decay_t<decltype(e)>;
                if constexpr (std::is_same_v<T, wlr_event_pointer_motion>)
                    wl_signal_emit(&cursor_->events.motion, &e);
                else if constexpr (std::is_same_v<T, wlr_event_pointer_motion_absolute>)
                    wl_signal_emit(&cursor_->events.motion_absolute, &e);
                else if constexpr (std::is_same_v<T, wlr_event_pointer_button>)
                    wl_signal_emit(&cursor_->events.button, &e);
                else
                    wl_signal_emit(&cursor_->events.axis, &e);
            },
            event);
    }
    wl_signal_emit(&cursor_->events.frame, cursor_);
}

}  // namespace kiln::compositor
