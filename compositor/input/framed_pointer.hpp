// FramedPointer: a virtual pointer's events held until its client's frame, then handed to the cursor together.
//
// zwlr_virtual_pointer_v1 groups events into frames, as wl_pointer does; wlroots 0.15 forwards each request as it
// comes, so a motion, a button or an axis reached windows before the client had finished the frame (a click
// reached them before the move that goes with it was complete). kiln does not attach such a device to the cursor:
// it queues the device's events and, at the frame, emits them on the cursor's signals as wlr_cursor would have.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <variant>
#include <vector>

namespace kiln::compositor {

class FramedPointer {
public:
    FramedPointer(wlr_input_device* device, wlr_cursor* cursor);
    FramedPointer(const FramedPointer&) = delete;
    FramedPointer& operator=(const FramedPointer&) = delete;

private:
    using Event = std::variant<wlr_event_pointer_motion, wlr_event_pointer_motion_absolute, wlr_event_pointer_button,
                               wlr_event_pointer_axis>;

    void flush();

    wlr_cursor* cursor_;
    std::vector<Event> held_;

    wl::Listener motion_;
    wl::Listener motion_absolute_;
    wl::Listener button_;
    wl::Listener axis_;
    wl::Listener frame_;
};

}  // namespace kiln::compositor
