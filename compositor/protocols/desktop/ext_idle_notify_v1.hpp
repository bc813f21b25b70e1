// ExtIdleNotifyV1: ext-idle-notify-v1 at version 2 (wlroots 0.15 lacks it), how idle daemons (swayidle 1.8,
// hypridle) learn the user went away and came back.
//
// It has no input of its own: kiln's Idle (input/idle.hpp) hands it the seat's activity and whether an idle
// inhibitor is active, the same source KDE idle hears. A notification from get_idle_notification is held by
// inhibitors; one from get_input_idle_notification (v2) counts input alone and ignores them, as the spec says.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/wlr.hpp"

#include <list>

namespace kiln::compositor {

class ExtIdleNotifyV1 {
public:
    explicit ExtIdleNotifyV1(wl_display* display);
    ~ExtIdleNotifyV1();
    ExtIdleNotifyV1(const ExtIdleNotifyV1&) = delete;
    ExtIdleNotifyV1& operator=(const ExtIdleNotifyV1&) = delete;

    // The user did something (kiln has one seat): idle notifications resume and every timeout starts over.
    void activity();
    // An idle inhibitor came (true) or the last one went (false).
    void set_inhibited(bool inhibited);

    struct Notification;
    void add_manager(wl_resource* manager);
    void add(Notification* notification);
    void remove(Notification* notification);
    bool inhibited() const { return inhibited_; }
    wl_event_loop* loop() const { return loop_; }

private:
    wl_event_loop* loop_;
    wl_global* global_;
    bool inhibited_ = false;
    IndexedList<Notification*> notifications_;  // each owned by its resource
    wl_list managers_;                         // bound ext_idle_notifier_v1 resources, cleared when kiln's side goes
};

}  // namespace kiln::compositor
