// Idle: KDE idle (swayidle 1.7 and screen lockers learn the user went away) and idle-inhibit (video players keep
// the screen on). The seat reports each input event as activity.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <list>
#include <memory>

namespace kiln::compositor {

class Idle {
public:
    Idle(wl_display* display, wlr_seat* seat);
    ~Idle();
    Idle(const Idle&) = delete;
    Idle& operator=(const Idle&) = delete;

    // The user did something: idle timers start over, idle clients hear "resumed".
    void activity();

private:
    class Inhibitor;
    void update_enabled();

    wlr_seat* seat_;
    wlr_idle* idle_;
    std::list<std::unique_ptr<Inhibitor>> inhibitors_;
    wl::Listener new_inhibitor_;
};

}  // namespace kiln::compositor
