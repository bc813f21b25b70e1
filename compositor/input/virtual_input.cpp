// Virtual keyboard and pointer managers, handing each new device to the seat.
#include "compositor/input/virtual_input.hpp"

#include "compositor/input/seat.hpp"

#include <cstdlib>

namespace kiln::compositor {
namespace {

// wlroots 0.15 never frees a virtual keyboard's wlr_keyboard: the keyboard's impl destroy is a no-op and the virtual
// keyboard frees only itself (types/wlr_virtual_keyboard_v1.c). Once wlr_keyboard_destroy has emitted its destroy
// signal nothing refers to it any more; kiln frees it on the loop's next idle turn, after wlroots has returned.
struct OrphanedKeyboard {
    wl_listener destroy;  // first member: the listener's address is the struct's
    wlr_keyboard* keyboard;
    wl_event_loop* loop;
};

void free_when_destroyed(wlr_keyboard* keyboard, wl_event_loop* loop)
{
    auto* orphan = new OrphanedKeyboard{{}, keyboard, loop};
    orphan->destroy.notify = [](wl_listener* listener, void*) noexcept {
        auto* o = reinterpret_cast<OrphanedKeyboard*>(listener);
        wl_list_remove(&o->destroy.link);
        wl_event_loop_add_idle(
            o->loop,
            [](void* data) noexcept {
                auto* o = static_cast<OrphanedKeyboard*>(data);
                free(o->keyboard);  // wlroots allocated it with calloc
                delete o;
            },
            o);
    };
    wl_signal_add(&keyboard->events.destroy, &orphan->destroy);
}

}  // namespace

VirtualInput::VirtualInput(wl_display* display, Seat& seat) : seat_(seat)
{
    // The managers are freed by wlroots with the display; the devices with their clients (the seat hears destroy).
    wlr_virtual_keyboard_manager_v1* keyboards = wlr_virtual_keyboard_manager_v1_create(display);
    wlr_virtual_pointer_manager_v1* pointers = wlr_virtual_pointer_manager_v1_create(display);
    new_keyboard_.connect(&keyboards->events.new_virtual_keyboard, [this, display](void* data) {
        wlr_input_device* device = &static_cast<wlr_virtual_keyboard_v1*>(data)->input_device;
        free_when_destroyed(device->keyboard, wl_display_get_event_loop(display));
        seat_.add_input(device);
    });
    // kiln has one seat and one cursor over the whole layout: the client's suggested seat and output change nothing.
    new_pointer_.connect(&pointers->events.new_virtual_pointer, [this](void* data) {
        seat_.add_input(&static_cast<wlr_virtual_pointer_v1_new_pointer_event*>(data)->new_pointer->input_device);
    });
}

}  // namespace kiln::compositor
