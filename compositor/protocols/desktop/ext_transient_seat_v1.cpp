// ext_transient_seat_manager_v1 and ext_transient_seat_v1: a wlr_seat per object, and the keyboard given to it.
#include "compositor/protocols/desktop/ext_transient_seat_v1.hpp"

#include "ext-transient-seat-v1-protocol.h"

#include <new>
#include <string>

namespace kiln::compositor {

// One transient seat: its wlr_seat lives exactly as long as the protocol object.
struct ExtTransientSeatV1::Seat {
    ExtTransientSeatV1* owner = nullptr;
    wl_resource* resource = nullptr;
    wlr_seat* seat = nullptr;
    wlr_input_device* device = nullptr;  // the virtual keyboard made on it, while it lives
    wl_listener key{};
    wl_listener modifiers{};
    wl_listener keyboard_destroyed{};
    wl_list link{};
    // Its object is gone: the seat has no input any more, and it is destroyed (its global removed) once no client
    // holds a wl_seat of it. Not before: wlroots 0.15 dereferences an inert wl_seat's (null) seat client in
    // create_virtual_keyboard and create_virtual_pointer, so a seat destroyed under a client would let it crash kiln,
    // and wlroots removes the global itself (removing it early as well aborts in libwayland).
    bool retired = false;

    void drop_keyboard()
    {
        if (!device)
            return;
        wl_list_remove(&key.link);
        wl_list_remove(&modifiers.link);
        wl_list_remove(&keyboard_destroyed.link);
        device = nullptr;
        wlr_seat_set_keyboard(seat, nullptr);
        wlr_seat_set_capabilities(seat, 0);
    }
};

namespace {

ExtTransientSeatV1::Seat* seat_from(wl_resource* resource)
{
    return static_cast<ExtTransientSeatV1::Seat*>(wl_resource_get_user_data(resource));
}

}  // namespace

ExtTransientSeatV1::ExtTransientSeatV1(wl_display* display)
    : display_(display), global_(wl_global_create(display, &ext_transient_seat_manager_v1_interface, 1, this, bind))
{
    wl_list_init(&seats_);
}

ExtTransientSeatV1::~ExtTransientSeatV1()
{
    // Clients (and with them every seat object and wl_seat) are gone before the rooms: what is left are retired seats.
    closing_ = true;
    if (sweep_)
        wl_event_source_remove(sweep_);
    Seat* seat = nullptr;
    Seat* next = nullptr;
    wl_list_for_each_safe(seat, next, &seats_, link)
    {
        wl_list_remove(&seat->link);
        seat->drop_keyboard();
        wlr_seat_destroy(seat->seat);  // a watch left fires here and, closing, schedules nothing
        if (seat->resource)
            wl_resource_set_user_data(seat->resource, nullptr);
        delete seat;
    }
    if (global_)
        wl_global_destroy(global_);
}

void ExtTransientSeatV1::create(wl_client* client, wl_resource* manager, uint32_t id) noexcept
{
    auto* self = static_cast<ExtTransientSeatV1*>(wl_resource_get_user_data(manager));
    auto* seat = new (std::nothrow) Seat();
    if (!seat) {
        wl_client_post_no_memory(client);
        return;
    }
    seat->resource = wl_resource_create(client, &ext_transient_seat_v1_interface, 1, id);
    if (!seat->resource) {
        delete seat;
        wl_client_post_no_memory(client);
        return;
    }
    static const struct ext_transient_seat_v1_interface requests = {
        .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
    };
    wl_resource_set_implementation(seat->resource, &requests, seat, [](wl_resource* resource) noexcept {
        Seat* gone = seat_from(resource);
        if (!gone)
            return;  // kiln is closing and freed it already
        gone->resource = nullptr;
        if (gone->seat)
            gone->owner->retire(*gone);
        else
            delete gone;
    });
    seat->owner = self;
    const std::string name = "transient-" + std::to_string(self->made_ + 1);
    seat->seat = wlr_seat_create(self->display_, name.c_str());
    if (!seat->seat) {
        // The protocol's answer to a seat kiln cannot make: denied, and the object stays inert.
        ext_transient_seat_v1_send_denied(seat->resource);
        return;
    }
    ++self->made_;
    ++self->alive_;
    self->sweep_soon();  // also finds a retired seat whose last holder bound it after it was retired
    wl_list_insert(&self->seats_, &seat->link);
    ext_transient_seat_v1_send_ready(seat->resource, wl_global_get_name(seat->seat->global, client));
}

// A watch on one client's wl_seat of a retired seat: its going may let the seat go.
struct ExtTransientSeatV1::ClientWatch {
    ExtTransientSeatV1* owner;
    wl_listener destroyed;
};

void ExtTransientSeatV1::retire(Seat& seat)
{
    seat.drop_keyboard();
    seat.retired = true;
    --alive_;
    wlr_seat_client* client = nullptr;
    wl_list_for_each(client, &seat.seat->clients, link)
    {
        auto* watch = new (std::nothrow) ClientWatch{this, {}};
        if (!watch)
            continue;  // that client's going goes unnoticed: the seat stays until a later sweep finds it unheld
        watch->destroyed.notify = [](wl_listener* listener, void*) noexcept {
            ClientWatch* w = wl_container_of(listener, w, destroyed);
            wl_list_remove(&w->destroyed.link);
            w->owner->sweep_soon();
            delete w;
        };
        wl_signal_add(&client->events.destroy, &watch->destroyed);
    }
    sweep_soon();
}

void ExtTransientSeatV1::sweep_soon()
{
    // Not from inside a seat client's destroy signal: wlroots still walks that seat then.
    if (sweep_ || closing_)
        return;
    sweep_ = wl_event_loop_add_idle(
        wl_display_get_event_loop(display_),
        [](void* data) noexcept {
            auto* self = static_cast<ExtTransientSeatV1*>(data);
            self->sweep_ = nullptr;
            self->sweep();
        },
        this);
}

void ExtTransientSeatV1::sweep()
{
    Seat* seat = nullptr;
    Seat* next = nullptr;
    wl_list_for_each_safe(seat, next, &seats_, link)
    {
        if (!seat->retired || !wl_list_empty(&seat->seat->clients))
            continue;
        wl_list_remove(&seat->link);
        wlr_seat_destroy(seat->seat);
        delete seat;
    }
}

bool ExtTransientSeatV1::take_keyboard(wlr_seat* wlr, wlr_input_device* device, wlr_surface* focus)
{
    Seat* seat = nullptr;
    Seat* candidate = nullptr;
    wl_list_for_each(candidate, &seats_, link)
    {
        if (candidate->seat == wlr)
            seat = candidate;
    }
    if (!seat)
        return false;
    if (seat->retired)
        return true;  // a keyboard on a seat whose object is gone types nowhere
    seat->drop_keyboard();  // a second keyboard replaces the first
    seat->device = device;
    wlr_keyboard* keyboard = device->keyboard;
    wlr_seat_set_capabilities(wlr, WL_SEAT_CAPABILITY_KEYBOARD);
    wlr_seat_set_keyboard(wlr, device);
    seat->key.notify = [](wl_listener* listener, void* data) noexcept {
        Seat* s = wl_container_of(listener, s, key);
        auto* event = static_cast<wlr_event_keyboard_key*>(data);
        wlr_seat_set_keyboard(s->seat, s->device);
        wlr_seat_keyboard_notify_key(s->seat, event->time_msec, event->keycode, event->state);
    };
    seat->modifiers.notify = [](wl_listener* listener, void*) noexcept {
        Seat* s = wl_container_of(listener, s, modifiers);
        wlr_seat_set_keyboard(s->seat, s->device);
        wlr_seat_keyboard_notify_modifiers(s->seat, &s->device->keyboard->modifiers);
    };
    seat->keyboard_destroyed.notify = [](wl_listener* listener, void*) noexcept {
        Seat* s = wl_container_of(listener, s, keyboard_destroyed);
        s->drop_keyboard();
    };
    wl_signal_add(&keyboard->events.key, &seat->key);
    wl_signal_add(&keyboard->events.modifiers, &seat->modifiers);
    wl_signal_add(&device->events.destroy, &seat->keyboard_destroyed);
    // Its own focus from here on: where kiln's seat has the keyboard now, not following it afterwards.
    if (focus)
        wlr_seat_keyboard_notify_enter(wlr, focus, keyboard->keycodes, keyboard->num_keycodes, &keyboard->modifiers);
    return true;
}

void ExtTransientSeatV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource =
        wl_resource_create(client, &ext_transient_seat_manager_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    static const struct ext_transient_seat_manager_v1_interface requests = {
        .create = create,
        .destroy = [](wl_client*, wl_resource* manager) noexcept { wl_resource_destroy(manager); },
    };
    wl_resource_set_implementation(resource, &requests, data, nullptr);
}

}  // namespace kiln::compositor
