// Virtual keyboard and pointer managers, handing each new device to the seat.
#include "compositor/input/virtual_input.hpp"

#include "compositor/input/seat.hpp"

namespace kiln::compositor {

VirtualInput::VirtualInput(wl_display* display, Seat& seat) : seat_(seat)
{
    // The managers are freed by wlroots with the display; the devices with their clients (the seat hears destroy).
    wlr_virtual_keyboard_manager_v1* keyboards = wlr_virtual_keyboard_manager_v1_create(display);
    wlr_virtual_pointer_manager_v1* pointers = wlr_virtual_pointer_manager_v1_create(display);
    new_keyboard_.connect(&keyboards->events.new_virtual_keyboard, [this](void* data) {
        seat_.add_input(&static_cast<wlr_virtual_keyboard_v1*>(data)->input_device);
    });
    // kiln has one seat and one cursor over the whole layout: the client's suggested seat and output change nothing.
    new_pointer_.connect(&pointers->events.new_virtual_pointer, [this](void* data) {
        seat_.add_input(&static_cast<wlr_virtual_pointer_v1_new_pointer_event*>(data)->new_pointer->input_device);
    });
}

}  // namespace kiln::compositor
