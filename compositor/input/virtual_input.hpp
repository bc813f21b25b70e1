// VirtualInput: keyboards and pointers that clients create (virtual-keyboard-v1, wlr-virtual-pointer-v1) and
// that join the seat like real devices: wtype, on-screen keyboards, remote desktops.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <functional>

namespace kiln::compositor {

class Seat;

class VirtualInput {
public:
    VirtualInput(wl_display* display, Seat& seat);
    VirtualInput(const VirtualInput&) = delete;
    VirtualInput& operator=(const VirtualInput&) = delete;

    // The managers' globals, privileged (a client could type or click into any window).
    const wl_global* keyboard_global() const { return keyboards_->global; }
    const wl_global* pointer_global() const { return pointers_->global; }
    // A virtual keyboard made on a wl_seat other than kiln's own (ext-transient-seat) is offered to `hook` first;
    // one it does not take joins kiln's seat. Null: every keyboard joins kiln's seat.
    using OtherSeat = std::function<bool(wlr_seat* seat, wlr_input_device* keyboard)>;
    void on_other_seat(OtherSeat hook) { other_seat_ = std::move(hook); }

private:
    Seat& seat_;
    OtherSeat other_seat_;
    wlr_virtual_keyboard_manager_v1* keyboards_;
    wlr_virtual_pointer_manager_v1* pointers_;
    wl::Listener new_keyboard_;
    wl::Listener new_pointer_;
};

}  // namespace kiln::compositor
