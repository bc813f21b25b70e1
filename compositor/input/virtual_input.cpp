// Virtual keyboard and pointer managers, handing each new device to the seat.
#include "compositor/input/virtual_input.hpp"

#include "compositor/input/seat.hpp"

#include <cstdlib>

namespace kiln::compositor {
namespace {

// wlroots 0.15 never frees a virtual keyboard's wlr_keyboard: the keyboard's impl destroy is a no-op and the virtual
// keyboard frees only itself (types/wlr_virtual_keyboard_v1.c). Once wlr_keyboard_destroy has emitted its destroy
// signal nothing refers to it any more; kiln frees it on the loop's next idle turn, after wlroots has returned, or
// when the loop itself goes (a keyboard destroyed as kiln exits: the loop frees no idle source it never ran).
struct OrphanedKeyboard {
    wl_listener destroy;       // the keyboard's
    wl_listener loop_destroy;  // the event loop's, while the idle turn is pending
    wlr_keyboard* keyboard;
    wl_event_loop* loop;
    wl_event_source* idle = nullptr;

    void free_keyboard()
    {
        free(keyboard);  // wlroots allocated it with calloc
        delete this;
    }
};

void free_when_destroyed(wlr_keyboard* keyboard, wl_event_loop* loop)
{
    auto* orphan = new OrphanedKeyboard{{}, {}, keyboard, loop};
    orphan->destroy.notify = [](wl_listener* listener, void*) noexcept {
        OrphanedKeyboard* o = wl_container_of(listener, o, destroy);
        wl_list_remove(&o->destroy.link);
        o->idle = wl_event_loop_add_idle(
            o->loop,
            [](void* data) noexcept {
                auto* o = static_cast<OrphanedKeyboard*>(data);
                wl_list_remove(&o->loop_destroy.link);
                o->free_keyboard();
            },
            o);
        if (!o->idle)
            return;  // out of memory: the keyboard stays allocated rather than freed under wlroots' feet
        o->loop_destroy.notify = [](wl_listener* listener, void*) noexcept {
            OrphanedKeyboard* o = wl_container_of(listener, o, loop_destroy);
            wl_event_source_remove(o->idle);
            o->free_keyboard();
        };
        wl_event_loop_add_destroy_listener(o->loop, &o->loop_destroy);
    };
    wl_signal_add(&keyboard->events.destroy, &orphan->destroy);
}

}  // namespace

// The managers are freed by wlroots with the display; the devices with their clients (the seat hears destroy).
VirtualInput::VirtualInput(wl_display* display, Seat& seat)
    : seat_(seat), keyboards_(wlr_virtual_keyboard_manager_v1_create(display)),
      pointers_(wlr_virtual_pointer_manager_v1_create(display))
{
    new_keyboard_.connect(&keyboards_->events.new_virtual_keyboard, [this, display](void* data) {
        wlr_input_device* device = &static_cast<wlr_virtual_keyboard_v1*>(data)->input_device;
        free_when_destroyed(device->keyboard, wl_display_get_event_loop(display));
        wlr_seat* on = static_cast<wlr_virtual_keyboard_v1*>(data)->seat;
        if (other_seat_ && on && on != seat_.wlr() && other_seat_(on, device))
            return;
        seat_.add_input(device);
    });
    // kiln has one seat and one cursor over the whole layout: the client's suggested seat and output change nothing.
    new_pointer_.connect(&pointers_->events.new_virtual_pointer, [this](void* data) {
        seat_.add_input(&static_cast<wlr_virtual_pointer_v1_new_pointer_event*>(data)->new_pointer->input_device,
                        true);
    });
}

}  // namespace kiln::compositor
