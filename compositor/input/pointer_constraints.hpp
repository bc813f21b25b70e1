// PointerConstraints: zwp_pointer_constraints_v1 (games, remote desktops): the pointer focus's constraint is
// active while its window holds the keyboard too, a locked pointer's cursor stays put and a confined one's stays inside its region.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <list>
#include <memory>

namespace kiln::compositor {

class PointerConstraints {
public:
    PointerConstraints(wl_display* display, wlr_seat* seat, wlr_cursor* cursor);
    ~PointerConstraints();
    PointerConstraints(const PointerConstraints&) = delete;
    PointerConstraints& operator=(const PointerConstraints&) = delete;

    // A pointer move of (dx, dy) as the active constraint allows it: none while locked, kept inside the region
    // while confined. Relative-pointer events still carry the whole move.
    void constrain(double& dx, double& dy) const;

private:
    struct Tracked;

    // Activates the constraint the focus calls for (or none), deactivating the one active before.
    void update();
    void set_active(wlr_pointer_constraint_v1* constraint);
    // A locked pointer let go of puts the cursor where the client hinted it would be (its own drawn cursor).
    void warp_to_hint(wlr_pointer_constraint_v1* constraint);

    wlr_pointer_constraints_v1* constraints_;
    wlr_seat* seat_;
    wlr_cursor* cursor_;
    wlr_pointer_constraint_v1* active_ = nullptr;
    IndexedList<std::unique_ptr<Tracked>> tracked_;

    wl::Listener new_constraint_;
    wl::Listener focus_change_;
    wl::Listener keyboard_focus_change_;
};

}  // namespace kiln::compositor
