// PopupGrabs behaviour: seat grab interfaces that keep input within the grabbing client and dismiss on outside clicks.
#include "compositor/shell/xdg/xdg_popup_grab.hpp"

#include "compositor/shell/xdg/xdg_popup.hpp"

#include <algorithm>

namespace kiln::compositor::xdg {
namespace {

PopupGrabs* grabs_of(void* data)
{
    return static_cast<PopupGrabs*>(data);
}

bool owned_by(wlr_surface* surface, wl_client* client)
{
    return surface && client && wl_resource_get_client(surface->resource) == client;
}

const wlr_pointer_grab_interface pointer_interface = {
    .enter =
        [](wlr_seat_pointer_grab* grab, wlr_surface* surface, double sx, double sy) noexcept {
            // Only the grabbing client's surfaces get the pointer; elsewhere it points at nothing.
            if (owned_by(surface, grabs_of(grab->data)->client()))
                wlr_seat_pointer_enter(grab->seat, surface, sx, sy);
            else
                wlr_seat_pointer_clear_focus(grab->seat);
        },
    .clear_focus = [](wlr_seat_pointer_grab* grab) noexcept { wlr_seat_pointer_clear_focus(grab->seat); },
    .motion = [](wlr_seat_pointer_grab* grab, uint32_t time_msec, double sx,
                 double sy) noexcept { wlr_seat_pointer_send_motion(grab->seat, time_msec, sx, sy); },
    .button =
        [](wlr_seat_pointer_grab* grab, uint32_t time_msec, uint32_t button,
           wlr_button_state state) noexcept -> uint32_t {
            const uint32_t serial = wlr_seat_pointer_send_button(grab->seat, time_msec, button, state);
            if (serial)
                return serial;
            // A click outside the client's surfaces closes its popups.
            if (state == WLR_BUTTON_PRESSED)
                grabs_of(grab->data)->dismiss_all();
            return 0;
        },
    .axis = [](wlr_seat_pointer_grab* grab, uint32_t time_msec, wlr_axis_orientation orientation, double value,
               int32_t discrete, wlr_axis_source source) noexcept {
        wlr_seat_pointer_send_axis(grab->seat, time_msec, orientation, value, discrete, source);
    },
    .frame = [](wlr_seat_pointer_grab* grab) noexcept { wlr_seat_pointer_send_frame(grab->seat); },
    .cancel = [](wlr_seat_pointer_grab* grab) noexcept { grabs_of(grab->data)->dismiss_all(); },
};

const wlr_keyboard_grab_interface keyboard_interface = {
    // Keyboard focus stays where the popup's client has it while the grab lasts.
    .enter = [](wlr_seat_keyboard_grab*, wlr_surface*, uint32_t[], size_t, wlr_keyboard_modifiers*) noexcept {},
    .clear_focus = [](wlr_seat_keyboard_grab*) noexcept {},
    .key = [](wlr_seat_keyboard_grab* grab, uint32_t time_msec, uint32_t key,
              uint32_t state) noexcept { wlr_seat_keyboard_send_key(grab->seat, time_msec, key, state); },
    .modifiers = [](wlr_seat_keyboard_grab* grab, wlr_keyboard_modifiers* modifiers) noexcept {
        wlr_seat_keyboard_send_modifiers(grab->seat, modifiers);
    },
    .cancel = [](wlr_seat_keyboard_grab* grab) noexcept { grabs_of(grab->data)->dismiss_all(); },
};

const wlr_touch_grab_interface touch_interface = {
    .down = [](wlr_seat_touch_grab* grab, uint32_t time_msec, wlr_touch_point* point) noexcept -> uint32_t {
        if (owned_by(point->surface, grabs_of(grab->data)->client()))
            return wlr_seat_touch_send_down(grab->seat, point->surface, time_msec, point->touch_id, point->sx,
                                            point->sy);
        grabs_of(grab->data)->dismiss_all();
        return 0;
    },
    .up = [](wlr_seat_touch_grab* grab, uint32_t time_msec, wlr_touch_point* point) noexcept {
        wlr_seat_touch_send_up(grab->seat, time_msec, point->touch_id);
    },
    .motion = [](wlr_seat_touch_grab* grab, uint32_t time_msec, wlr_touch_point* point) noexcept {
        wlr_seat_touch_send_motion(grab->seat, time_msec, point->touch_id, point->sx, point->sy);
    },
    .enter = [](wlr_seat_touch_grab*, uint32_t, wlr_touch_point*) noexcept {},
    .frame = [](wlr_seat_touch_grab* grab) noexcept { wlr_seat_touch_send_frame(grab->seat); },
    .cancel = [](wlr_seat_touch_grab* grab) noexcept { grabs_of(grab->data)->dismiss_all(); },
    .wl_cancel = [](wlr_seat_touch_grab* grab, wlr_surface* surface) noexcept {
        wlr_seat_touch_send_cancel(grab->seat, surface);
    },
};

}  // namespace

PopupGrabs::PopupGrabs(wlr_seat* seat) : seat_(seat)
{
    pointer_grab_.interface = &pointer_interface;
    pointer_grab_.seat = seat;
    pointer_grab_.data = this;
    keyboard_grab_.interface = &keyboard_interface;
    keyboard_grab_.seat = seat;
    keyboard_grab_.data = this;
    touch_grab_.interface = &touch_interface;
    touch_grab_.seat = seat;
    touch_grab_.data = this;
}

PopupGrabs::~PopupGrabs()
{
    end();
}

bool PopupGrabs::holds(const Popup* popup) const
{
    return popups_.contains(popup);
}

wl_client* PopupGrabs::client() const
{
    return popups_.empty() ? nullptr : wl_resource_get_client(popups_.back()->resource());
}

void PopupGrabs::add(Popup* popup)
{
    // Another client's grab ends first: one client holds the seat at a time.
    if (!popups_.empty() && client() != wl_resource_get_client(popup->resource()))
        dismiss_all();
    if (!popups_.contains(popup))
        popups_.push_back(popup);
    start();
}

void PopupGrabs::remove(Popup* popup)
{
    popups_.remove(popup);
    if (popups_.empty())
        end();
}

void PopupGrabs::dismiss_all()
{
    // Topmost first, as the client must destroy them; each dismiss removes the popup from the list.
    while (!popups_.empty()) {
        Popup* popup = popups_.back();
        popup->dismiss();
        if (!popups_.empty() && popups_.back() == popup)
            popups_.pop_back();
    }
    end();
}

void PopupGrabs::start()
{
    if (active_)
        return;
    active_ = true;
    wlr_seat_pointer_start_grab(seat_, &pointer_grab_);
    wlr_seat_keyboard_start_grab(seat_, &keyboard_grab_);
    wlr_seat_touch_start_grab(seat_, &touch_grab_);
}

void PopupGrabs::end()
{
    if (!active_)
        return;
    active_ = false;
    // Only the grabs that are still this one's (another may have replaced it meanwhile).
    if (seat_->pointer_state.grab == &pointer_grab_)
        wlr_seat_pointer_end_grab(seat_);
    if (seat_->keyboard_state.grab == &keyboard_grab_)
        wlr_seat_keyboard_end_grab(seat_);
    if (seat_->touch_state.grab == &touch_grab_)
        wlr_seat_touch_end_grab(seat_);
}

}  // namespace kiln::compositor::xdg
