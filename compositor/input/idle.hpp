// Idle: KDE idle (swayidle 1.7 and screen lockers learn the user went away) and idle-inhibit (video players keep
// the screen on). The seat reports each input event as activity; ext-idle-notify hears the same activity and
// inhibitors from here, so both idle protocols follow one source.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <functional>
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
    // What a second idle protocol (ext-idle-notify, which the composition root connects) hears from here: each
    // activity, and whether an inhibitor holds the timers. Given through callbacks, so input/ needs no protocol.
    struct Follower {
        std::function<void()> activity;
        std::function<void(bool inhibited)> inhibited;
    };
    // `follower` hears the activity and the inhibitors too (empty: no longer); it is told the inhibitors now.
    void also_notify(Follower follower);

private:
    class Inhibitor;
    void update_enabled();

    wlr_seat* seat_;
    wlr_idle* idle_;
    Follower follower_;
    IndexedList<std::unique_ptr<Inhibitor>> inhibitors_;
    wl::Listener new_inhibitor_;
};

}  // namespace kiln::compositor
