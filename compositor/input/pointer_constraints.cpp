// PointerConstraints: which constraint is active (the pointer focus's), and what it does to a pointer move.
#include "compositor/input/pointer_constraints.hpp"

namespace kiln::compositor {

struct PointerConstraints::Tracked {
    wlr_pointer_constraint_v1* constraint = nullptr;
    wl::Listener destroy;
};

PointerConstraints::PointerConstraints(wl_display* display, wlr_seat* seat, wlr_cursor* cursor)
    : constraints_(wlr_pointer_constraints_v1_create(display)), seat_(seat), cursor_(cursor)
{
    new_constraint_.connect(&constraints_->events.new_constraint, [this](void* data) {
        auto* constraint = static_cast<wlr_pointer_constraint_v1*>(data);
        auto tracked = std::make_unique<Tracked>();
        Tracked* raw = tracked.get();
        raw->constraint = constraint;
        raw->destroy.connect(&constraint->events.destroy, [this, raw](void*) {
            if (active_ == raw->constraint) {
                warp_to_hint(active_);
                active_ = nullptr;
            }
            tracked_.erase(raw);
        });
        tracked_.push_back(std::move(tracked));
        // A constraint on the surface under the pointer, in the focused window, takes effect at once.
        update();
    });
    focus_change_.connect(&seat->pointer_state.events.focus_change, [this](void*) { update(); });
    keyboard_focus_change_.connect(&seat->keyboard_state.events.focus_change, [this](void*) { update(); });
}

void PointerConstraints::update()
{
    // The pointer focus's constraint, while the keyboard is on the same window (the surface tree under one root
    // surface): a window that takes the keyboard (a new one, a click elsewhere) takes the constraint's effect away
    // even where the pointer stays, as a game expects when it is no longer the window in use.
    wlr_surface* surface = seat_->pointer_state.focused_surface;
    wlr_surface* keyboard = seat_->keyboard_state.focused_surface;
    if (!surface || !keyboard || wlr_surface_get_root_surface(surface) != wlr_surface_get_root_surface(keyboard)) {
        set_active(nullptr);
        return;
    }
    set_active(wlr_pointer_constraints_v1_constraint_for_surface(constraints_, surface, seat_));
}

PointerConstraints::~PointerConstraints()
{
    focus_change_.disconnect();
    keyboard_focus_change_.disconnect();
    tracked_.clear();
}

void PointerConstraints::set_active(wlr_pointer_constraint_v1* constraint)
{
    if (active_ == constraint)
        return;
    // A one-shot constraint is destroyed by its deactivation, which clears active_ on the way.
    wlr_pointer_constraint_v1* old = active_;
    active_ = nullptr;
    if (old) {
        warp_to_hint(old);
        wlr_pointer_constraint_v1_send_deactivated(old);
    }
    active_ = constraint;
    if (constraint)
        wlr_pointer_constraint_v1_send_activated(constraint);
}

void PointerConstraints::warp_to_hint(wlr_pointer_constraint_v1* constraint)
{
    if (constraint->type != WLR_POINTER_CONSTRAINT_V1_LOCKED ||
        !(constraint->current.committed & WLR_POINTER_CONSTRAINT_V1_STATE_CURSOR_HINT) ||
        constraint->surface != seat_->pointer_state.focused_surface)
        return;
    // The surface's origin in the layout: the cursor less its surface-local position.
    const double x = constraint->current.cursor_hint.x;
    const double y = constraint->current.cursor_hint.y;
    wlr_cursor_warp(cursor_, nullptr, cursor_->x - seat_->pointer_state.sx + x,
                    cursor_->y - seat_->pointer_state.sy + y);
    wlr_seat_pointer_warp(seat_, x, y);
}

void PointerConstraints::constrain(double& dx, double& dy) const
{
    if (!active_ || active_->surface != seat_->pointer_state.focused_surface)
        return;
    if (active_->type == WLR_POINTER_CONSTRAINT_V1_LOCKED) {
        dx = 0;
        dy = 0;
        return;
    }
    // Confined: from where the pointer is on the surface, as far along the move as the region allows.
    const double sx = seat_->pointer_state.sx;
    const double sy = seat_->pointer_state.sy;
    double x = 0;
    double y = 0;
    if (wlr_region_confine(const_cast<pixman_region32_t*>(&active_->region), sx, sy, sx + dx, sy + dy, &x, &y)) {
        dx = x - sx;
        dy = y - sy;
    }
}

}  // namespace kiln::compositor
