// Touch: touchscreens join the seat, and each touch point goes to the surface it went down on until it goes up.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <list>
#include <map>
#include <memory>

namespace kiln::compositor {

struct Core;
class InputInhibit;
class WindowInput;

class Touch {
public:
    // `changed` runs when a device comes or goes (the seat's capabilities); `activity` on every touch event.
    // Points go to surfaces `inhibit` lets have input; a point on a window focuses it.
    Touch(const Core& core, WindowInput& windows, const InputInhibit& inhibit, wlr_seat* seat, wlr_cursor* cursor,
          std::function<void()> changed, std::function<void()> activity);
    ~Touch();
    Touch(const Touch&) = delete;
    Touch& operator=(const Touch&) = delete;

    void add_device(wlr_input_device* device);
    bool has_devices() const { return !devices_.empty(); }
    // A touch device of the headless backend (which kiln's test input drives), or null.
    wlr_input_device* headless_device() const;
    // Every client but `client` has its touch points cancelled (a client took the input inhibitor).
    void cancel_except(wl_client* client);

private:
    class Device;
    struct Point;

    void down(const wlr_event_touch_down& event);
    void motion(const wlr_event_touch_motion& event);
    void up(const wlr_event_touch_up& event);
    void cancel(const wlr_event_touch_cancel& event);
    void end_on_surface_gone(int32_t touch_id);
    // wl_touch.cancel to `client`, whose points all end with it.
    void cancel_client(wlr_seat_client* client);
    // Ends every point of `client` without a wl_touch.up: after a cancel the client expects no more of them.
    void drop_points(wlr_seat_client* client);

    const Core& core_;
    WindowInput& windows_;
    const InputInhibit& inhibit_;
    wlr_seat* seat_;
    wlr_cursor* cursor_;
    std::function<void()> changed_;
    std::function<void()> activity_;
    IndexedList<std::unique_ptr<Device>> devices_;
    std::map<int32_t, std::unique_ptr<Point>> points_;  // by touch id: the scene node each went down on

    wl::Listener down_;
    wl::Listener motion_;
    wl::Listener up_;
    wl::Listener cancel_;
    wl::Listener frame_;
};

}  // namespace kiln::compositor
