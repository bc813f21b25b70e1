// VirtualInput: keyboards and pointers that clients create (virtual-keyboard-v1, wlr-virtual-pointer-v1) and
// that join the seat like real devices: wtype, on-screen keyboards, remote desktops.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class Seat;

class VirtualInput {
public:
    VirtualInput(wl_display* display, Seat& seat);
    VirtualInput(const VirtualInput&) = delete;
    VirtualInput& operator=(const VirtualInput&) = delete;

private:
    Seat& seat_;
    wl::Listener new_keyboard_;
    wl::Listener new_pointer_;
};

}  // namespace kiln::compositor
