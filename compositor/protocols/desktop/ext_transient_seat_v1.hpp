// ExtTransientSeatV1: ext_transient_seat_manager_v1, a wl_seat of its own for a remote-desktop client (wayvnc): a
// second wlr_seat named transient-N, announced with ready(its global's name). With the object (or its client) the
// seat loses its input at once and goes, global and all, once no client holds a wl_seat of it (see Seat::retired).
//
// A virtual keyboard made on such a seat types into that seat's own keyboard focus: the window focused on kiln's
// seat when the keyboard arrives, kept there whatever kiln's seat focuses afterwards. Virtual pointers made on it
// still move kiln's one cursor (kiln has one cursor over the layout), so a click does not move the seat's focus.
#pragma once

#include "compositor/wlr.hpp"

#include <cstddef>
#include <cstdint>

namespace kiln::compositor {

class ExtTransientSeatV1 {
public:
    explicit ExtTransientSeatV1(wl_display* display);
    ~ExtTransientSeatV1();
    ExtTransientSeatV1(const ExtTransientSeatV1&) = delete;
    ExtTransientSeatV1& operator=(const ExtTransientSeatV1&) = delete;

    const wl_global* global() const { return global_; }
    // Takes `keyboard` (a virtual keyboard made on `seat`) when `seat` is a transient seat: its keys go to that seat,
    // focused on `focus` (null: nothing yet). False: `seat` is not one of them.
    bool take_keyboard(wlr_seat* seat, wlr_input_device* keyboard, wlr_surface* focus);
    // Transient seats alive now, and made since start (stats).
    size_t alive() const { return alive_; }
    uint64_t made() const { return made_; }

    struct Seat;
    struct ClientWatch;

private:
    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;
    static void create(wl_client* client, wl_resource* manager, uint32_t id) noexcept;

    // The object is gone: its keyboard goes at once, its wlr_seat once no client holds a wl_seat of it.
    void retire(Seat& seat);
    void sweep_soon();
    void sweep();

    wl_display* display_;
    wl_event_source* sweep_ = nullptr;
    bool closing_ = false;
    wl_global* global_;
    wl_list seats_;  // Seat::link
    size_t alive_ = 0;
    uint64_t made_ = 0;
};

}  // namespace kiln::compositor
