// Tablet: drawing tablets (tablet-v2, zwp_tablet_manager_v2): a tablet's tools (pens, erasers) move the cursor and
// talk tablet-v2 to the surface under them; a surface whose client has not bound tablet-v2 gets pointer events
// instead (tip as the left button, a tool button as the right), as on sway. The client a tool is over may set the
// cursor image for it (tablet-v2 set_cursor: a brush's outline). Tablet pads (their buttons, rings and strips) are
// not routed.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <list>
#include <map>
#include <memory>
#include <span>

namespace kiln::compositor {

class CursorImage;
struct Core;
class InputInhibit;
class WindowInput;

class Tablet {
public:
    // What a tool does where tablet-v2 is not spoken: the seat's own pointer path, after the cursor has moved.
    struct PointerEmulation {
        std::function<void(uint32_t time_msec)> moved;
        std::function<void(uint32_t time_msec, uint32_t button, wlr_button_state state)> button;
        std::function<void()> frame;
    };

    // `activity` runs on every tool event (idle timers start over).
    // Tools work surfaces `inhibit` lets have input; the tip on a window focuses it.
    Tablet(const Core& core, WindowInput& windows, const InputInhibit& inhibit, wlr_seat* seat, wlr_cursor* cursor,
           CursorImage& image, PointerEmulation emulation, std::function<void()> activity);
    ~Tablet();
    Tablet(const Tablet&) = delete;
    Tablet& operator=(const Tablet&) = delete;

    void add_device(wlr_input_device* device);
    // A tablet of the headless backend (which kiln's test input drives), or null.
    wlr_input_device* headless_device() const;
    // cursor-shape-v1 for a tool: `client` names a shape with `serial`; honoured for a tool over that client's
    // surface whose proximity serial it is, as tablet-v2 set_cursor is.
    void set_tool_shape(wl_client* client, uint32_t serial, std::span<const char* const> names);
    // Tools over a surface of any client but `client` leave it (a client took the input inhibitor).
    void leave_except(wl_client* client);

private:
    class Device;
    class Tool;

    Device* device_for(wlr_input_device* device) const;
    Tool* tool_for(wlr_tablet_tool* tool, wlr_input_device* device);
    // The tool moved to the cursor's new position: tablet-v2 motion to the surface under it (or the one it holds
    // while its tip is down), or pointer emulation where the surface does not speak tablet-v2.
    void moved(Tool& tool, uint32_t time_msec);
    void proximity(const wlr_event_tablet_tool_proximity& event);
    void axis(const wlr_event_tablet_tool_axis& event);
    void tip(const wlr_event_tablet_tool_tip& event);
    void button(const wlr_event_tablet_tool_button& event);
    // tablet-v2 set_cursor: honoured from the client whose surface the tool is over, for its current proximity.
    void set_cursor(Tool& tool, const wlr_tablet_v2_event_cursor& event);
    // The tool's surface changed (or it has none now): an image its last client set goes.
    void surface_changed(wlr_surface* before, const Tool& tool);

    const Core& core_;
    WindowInput& windows_;
    const InputInhibit& inhibit_;
    wlr_seat* seat_;
    wlr_cursor* cursor_;
    CursorImage& image_;
    PointerEmulation emulation_;
    std::function<void()> activity_;
    wlr_tablet_manager_v2* manager_;  // freed with the display
    IndexedList<std::unique_ptr<Device>> devices_;
    std::map<wlr_tablet_tool*, std::unique_ptr<Tool>> tools_;
    bool emulating_tip_ = false;   // a tip went down where tablet-v2 is not spoken: the left button is held
    int emulated_buttons_ = 0;     // tool buttons held where tablet-v2 is not spoken (one right button for all)

    wl::Listener proximity_;
    wl::Listener axis_;
    wl::Listener tip_;
    wl::Listener button_;
};

}  // namespace kiln::compositor
