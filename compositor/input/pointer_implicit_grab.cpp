// PointerImplicitGrab behaviour: a hold starts with the first button a client hears pressed, follows its surface's
// scene node, ends with the last release, and lets go early (quietly, for the seat's set of held buttons) when its
// surface goes.
#include "compositor/input/pointer_implicit_grab.hpp"

#include <algorithm>

namespace kiln::compositor {
namespace {

// A pointer grab that sends nothing: with it, wlr_seat_pointer_notify_button takes a button out of the seat's set
// of held buttons without a wl_pointer.button. wlroots 0.15 has no other way to forget a held button.
const wlr_pointer_grab_interface silent_interface = {
    .enter = [](wlr_seat_pointer_grab*, wlr_surface*, double, double) noexcept {},
    .clear_focus = [](wlr_seat_pointer_grab*) noexcept {},
    .motion = [](wlr_seat_pointer_grab*, uint32_t, double, double) noexcept {},
    .button = [](wlr_seat_pointer_grab*, uint32_t, uint32_t, wlr_button_state) noexcept -> uint32_t { return 0; },
    .axis = [](wlr_seat_pointer_grab*, uint32_t, wlr_axis_orientation, double, int32_t, wlr_axis_source) noexcept {},
    .frame = [](wlr_seat_pointer_grab*) noexcept {},
    .cancel = [](wlr_seat_pointer_grab*) noexcept {},
};

}  // namespace

PointerImplicitGrab::PointerImplicitGrab(wlr_seat* seat, std::function<void()> lost)
    : seat_(seat), lost_(std::move(lost))
{
}

void PointerImplicitGrab::pressed(uint32_t button, wlr_scene_node* node, const wlr_input_device* device)
{
    std::erase(orphans_, button);  // pressed again: this press's release is the client's
    if (active_)
        return;
    wlr_surface* focused = seat_->pointer_state.focused_surface;
    if (focused && !node)
        return;
    active_ = true;
    surface_ = focused;
    node_ = node;
    device_ = device;
    grab_ = seat_->pointer_state.grab;
    if (node)
        node_destroy_.connect(&node->events.destroy, [this](void*) {
            node_ = nullptr;
            node_destroy_.disconnect();
            lost_();
        });
}

bool PointerImplicitGrab::released()
{
    if (!active_ || seat_->pointer_state.button_count > 0)
        return false;
    end();
    return true;
}

bool PointerImplicitGrab::holding()
{
    if (!active_)
        return false;
    if (seat_->pointer_state.grab != grab_) {
        end();  // a popup grab or a drag routes the pointer now, and the buttons' releases go through it
        return false;
    }
    // The node first: once it is gone, surface_ may be gone too.
    int x = 0;
    int y = 0;
    const bool shown = !surface_ || (node_ && wlr_scene_node_coords(node_, &x, &y) && wlr_surface_has_buffer(surface_));
    if (shown && seat_->pointer_state.focused_surface == surface_)
        return true;
    forget();
    return false;
}

void PointerImplicitGrab::motion(double lx, double ly, uint32_t time_msec, bool frame)
{
    if (!node_)
        return;  // held on no surface: no client hears the pointer move
    int nx = 0;
    int ny = 0;
    wlr_scene_node_coords(node_, &nx, &ny);
    const double sx = lx - nx;
    const double sy = ly - ny;
    // As the client sees it (in wl_fixed_t): a scene change that moved nothing sends nothing.
    if (wl_fixed_from_double(seat_->pointer_state.sx) == wl_fixed_from_double(sx) &&
        wl_fixed_from_double(seat_->pointer_state.sy) == wl_fixed_from_double(sy))
        return;
    wlr_seat_pointer_notify_motion(seat_, time_msec, sx, sy);
    if (frame)
        wlr_seat_pointer_notify_frame(seat_);
}

bool PointerImplicitGrab::device_gone(const wlr_input_device* device)
{
    if (!active_ || !device || device != device_)
        return false;
    forget();
    return true;
}

bool PointerImplicitGrab::swallow(uint32_t button)
{
    const auto it = std::find(orphans_.begin(), orphans_.end(), button);
    if (it == orphans_.end())
        return false;
    orphans_.erase(it);
    return true;
}

void PointerImplicitGrab::end()
{
    active_ = false;
    surface_ = nullptr;
    node_ = nullptr;
    device_ = nullptr;
    grab_ = nullptr;
    node_destroy_.disconnect();
}

void PointerImplicitGrab::forget()
{
    end();
    // The client the pointer meets next did not see these presses, so it does not hear them released; the seat
    // forgets them now, so a press there is its first (a move request's serial checks for one button held).
    const std::vector<uint32_t> held(seat_->pointer_state.buttons,
                                     seat_->pointer_state.buttons + seat_->pointer_state.button_count);
    wlr_seat_pointer_grab* previous = seat_->pointer_state.grab;
    wlr_seat_pointer_grab silent{&silent_interface, seat_, nullptr};
    wlr_seat_pointer_start_grab(seat_, &silent);
    for (uint32_t button : held) {
        wlr_seat_pointer_notify_button(seat_, 0, button, WLR_BUTTON_RELEASED);
        if (std::find(orphans_.begin(), orphans_.end(), button) == orphans_.end())
            orphans_.push_back(button);
    }
    if (previous != seat_->pointer_state.default_grab)
        wlr_seat_pointer_start_grab(seat_, previous);  // an xdg_popup grab goes on as it was
    else
        wlr_seat_pointer_end_grab(seat_);
}

}  // namespace kiln::compositor
