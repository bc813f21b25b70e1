// Idle timers and their inhibitors.
#include "compositor/input/idle.hpp"

namespace kiln::compositor {

// One client's inhibitor, for as long as it or its surface lives.
class Idle::Inhibitor {
public:
    Inhibitor(Idle& idle, wlr_idle_inhibitor_v1* inhibitor)
    {
        destroy_.connect(&inhibitor->events.destroy, [this, &idle](void*) {
            Idle& owner = idle;  // this closure dies with the inhibitor: nothing of it is read after the removal
            owner.inhibitors_.erase(this);
            owner.update_enabled();
        });
    }

private:
    wl::Listener destroy_;
};

Idle::Idle(wl_display* display, wlr_seat* seat) : seat_(seat), idle_(wlr_idle_create(display))
{
    // Both globals are freed by wlroots with the display.
    wlr_idle_inhibit_manager_v1* inhibit = wlr_idle_inhibit_v1_create(display);
    new_inhibitor_.connect(&inhibit->events.new_inhibitor, [this](void* data) {
        inhibitors_.push_back(std::make_unique<Inhibitor>(*this, static_cast<wlr_idle_inhibitor_v1*>(data)));
        update_enabled();
    });
}

Idle::~Idle() = default;

void Idle::activity()
{
    wlr_idle_notify_activity(idle_, seat_);
    if (follower_.activity)
        follower_.activity();
}

void Idle::also_notify(Follower follower)
{
    follower_ = std::move(follower);
    if (follower_.inhibited)
        follower_.inhibited(!inhibitors_.empty());
}

void Idle::update_enabled()
{
    // Any inhibitor holds the timers: every mapped kiln window is shown, so whether its surface is visible is not
    // checked (an inhibitor on an unmapped surface also holds them).
    wlr_idle_set_enabled(idle_, seat_, inhibitors_.empty());
    if (follower_.inhibited)
        follower_.inhibited(!inhibitors_.empty());
}

}  // namespace kiln::compositor
