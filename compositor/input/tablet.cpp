// Tablet behaviour: tablets join the cursor and tablet-v2, a tool is announced to clients when it first comes near,
// and each tool event goes to the surface under the tool as tablet-v2 or, where that is not spoken, as the pointer.
#include "compositor/input/tablet.hpp"

#include "compositor/input/cursor.hpp"
#include "compositor/input/input_inhibit.hpp"
#include "compositor/input/output_mapping.hpp"
#include "compositor/input/scene_hit.hpp"
#include "compositor/input/window_input.hpp"
#include "compositor/core.hpp"

#include <linux/input-event-codes.h>

#include <cmath>

namespace kiln::compositor {

// One tablet on the cursor, with its tablet-v2 object (which wlroots frees with the device).
class Tablet::Device {
public:
    Device(Tablet& owner, wlr_input_device* device)
        : owner_(owner), device_(device), v2_(wlr_tablet_create(owner.manager_, owner.seat_, device)),
          mapping_(owner.cursor_, owner.core_.layout, device)
    {
        destroy_.connect(&device->events.destroy, [this](void*) {
            Tablet& owner = owner_;
            owner.devices_.erase(this);
        });
    }

    wlr_input_device* device() const { return device_; }
    wlr_tablet_v2_tablet* v2() const { return v2_; }

private:
    Tablet& owner_;
    wlr_input_device* device_;
    wlr_tablet_v2_tablet* v2_;
    OutputMapping mapping_;
    wl::Listener destroy_;
};

// One tool (a pen, an eraser), announced to tablet-v2 clients; it goes when its wlr_tablet_tool does.
class Tablet::Tool {
public:
    Tool(Tablet& owner, wlr_tablet_tool* tool) : tool_(tool)
    {
        // Connected before wlroots' own listener, which frees the tablet-v2 tool on this signal: a tip still held
        // ends its implicit grab here first (wlroots 0.15 would leak the grab with the tool).
        destroy_.connect(&tool->events.destroy, [&owner, tool, this](void*) {
            if (v2_ && wlr_tablet_tool_v2_has_implicit_grab(v2_))
                wlr_tablet_tool_v2_end_grab(v2_);
            owner.tools_.erase(tool);
        });
        v2_ = wlr_tablet_tool_create(owner.manager_, owner.seat_, tool);
        if (v2_)
            set_cursor_.connect(&v2_->events.set_cursor, [&owner, this](void* data) {
                owner.set_cursor(*this, *static_cast<wlr_tablet_v2_event_cursor*>(data));
            });
    }

    wlr_tablet_v2_tablet_tool* v2() const { return v2_; }
    // Mice and lenses on a tablet move the cursor as a mouse does; pens go where they point.
    bool relative() const
    {
        return tool_->type == WLR_TABLET_TOOL_TYPE_MOUSE || tool_->type == WLR_TABLET_TOOL_TYPE_LENS;
    }
    // The tablet the tool last came through.
    wlr_tablet_v2_tablet* tablet = nullptr;
    double tilt_x = 0;
    double tilt_y = 0;

    // The scene node of the surface the tool is over, for surface-local motion while the tip holds that surface
    // and the tool strays outside it.
    wlr_scene_node* node() const { return node_; }
    void follow(wlr_scene_node* node)
    {
        node_ = node;
        node_destroy_.disconnect();
        if (node)
            node_destroy_.connect(&node->events.destroy, [this](void*) { follow(nullptr); });
    }

private:
    wlr_tablet_tool* tool_;
    wlr_tablet_v2_tablet_tool* v2_ = nullptr;
    wlr_scene_node* node_ = nullptr;
    wl::Listener node_destroy_;
    wl::Listener set_cursor_;
    wl::Listener destroy_;
};

Tablet::Tablet(const Core& core, WindowInput& windows, const InputInhibit& inhibit, wlr_seat* seat, wlr_cursor* cursor,
               CursorImage& image, PointerEmulation emulation, std::function<void()> activity)
    : core_(core),
      windows_(windows),
      inhibit_(inhibit),
      seat_(seat),
      cursor_(cursor),
      image_(image),
      emulation_(std::move(emulation)),
      activity_(std::move(activity)),
      manager_(wlr_tablet_v2_create(core.display))
{
    proximity_.connect(&cursor->events.tablet_tool_proximity, [this](void* data) {
        proximity(*static_cast<wlr_event_tablet_tool_proximity*>(data));
    });
    axis_.connect(&cursor->events.tablet_tool_axis,
                  [this](void* data) { axis(*static_cast<wlr_event_tablet_tool_axis*>(data)); });
    tip_.connect(&cursor->events.tablet_tool_tip,
                 [this](void* data) { tip(*static_cast<wlr_event_tablet_tool_tip*>(data)); });
    button_.connect(&cursor->events.tablet_tool_button,
                    [this](void* data) { button(*static_cast<wlr_event_tablet_tool_button*>(data)); });
}

Tablet::~Tablet()
{
    for (wl::Listener* listener : {&proximity_, &axis_, &tip_, &button_})
        listener->disconnect();
    tools_.clear();
    devices_.clear();
}

void Tablet::add_device(wlr_input_device* device)
{
    if (!manager_)
        return;
    devices_.push_back(std::make_unique<Device>(*this, device));
}

wlr_input_device* Tablet::headless_device() const
{
    for (const auto& d : devices_)
        if (wlr_input_device_is_headless(d->device()))
            return d->device();
    return nullptr;
}

Tablet::Device* Tablet::device_for(wlr_input_device* device) const
{
    for (const auto& d : devices_)
        if (d->device() == device)
            return d.get();
    return nullptr;
}

Tablet::Tool* Tablet::tool_for(wlr_tablet_tool* tool, wlr_input_device* device)
{
    Device* from = device_for(device);
    if (!from || !from->v2() || !tool)
        return nullptr;
    auto it = tools_.find(tool);
    if (it == tools_.end()) {
        // A tool is known once it first comes near a tablet (libinput tells of no tool before that).
        auto created = std::make_unique<Tool>(*this, tool);
        if (!created->v2())
            return nullptr;
        it = tools_.emplace(tool, std::move(created)).first;
    }
    it->second->tablet = from->v2();
    return it->second.get();
}

namespace {

// The surface under the cursor that may have input now (not another client's while one holds the inhibitor).
SceneHit hit_at(const Core& core, const InputInhibit& inhibit, wlr_cursor* cursor)
{
    const SceneHit hit = scene_hit(core.scene, cursor->x, cursor->y);
    return hit.surface && inhibit.allows(hit.surface) ? hit : SceneHit{};
}

}  // namespace

void Tablet::moved(Tool& tool, uint32_t time_msec)
{
    const SceneHit hit = hit_at(core_, inhibit_, cursor_);
    wlr_tablet_v2_tablet_tool* v2 = tool.v2();
    // Once the tip went down on a tablet-v2 surface that surface has the tool until the tip is up, wherever it
    // goes; once it went down elsewhere the pointer has it.
    const bool held = wlr_tablet_tool_v2_has_implicit_grab(v2);
    wlr_surface* before = v2->focused_surface;
    if (!emulating_tip_ && (held || (hit.surface && wlr_surface_accepts_tablet_v2(tool.tablet, hit.surface)))) {
        // While held, these only record where the tool is, for when the tip comes up.
        if (hit.surface)
            wlr_tablet_v2_tablet_tool_notify_proximity_in(v2, tool.tablet, hit.surface);
        else
            wlr_tablet_v2_tablet_tool_notify_proximity_out(v2);
        surface_changed(before, tool);
        if (hit.surface && v2->focused_surface == hit.surface) {
            tool.follow(hit.node);
            wlr_tablet_v2_tablet_tool_notify_motion(v2, hit.sx, hit.sy);
        } else if (held && tool.node()) {
            int nx = 0;
            int ny = 0;
            wlr_scene_node_coords(tool.node(), &nx, &ny);
            wlr_tablet_v2_tablet_tool_notify_motion(v2, cursor_->x - nx, cursor_->y - ny);
        }
        return;
    }
    wlr_tablet_v2_tablet_tool_notify_proximity_out(v2);
    surface_changed(before, tool);
    tool.follow(nullptr);
    emulation_.moved(time_msec);
    emulation_.frame();
}

void Tablet::proximity(const wlr_event_tablet_tool_proximity& event)
{
    activity_();
    Tool* tool = tool_for(event.tool, event.device);
    if (!tool)
        return;
    if (event.state == WLR_TABLET_TOOL_PROXIMITY_OUT) {
        wlr_surface* before = tool->v2()->focused_surface;
        wlr_tablet_v2_tablet_tool_notify_proximity_out(tool->v2());
        surface_changed(before, *tool);
        tool->follow(nullptr);
        return;
    }
    if (!tool->relative())
        wlr_cursor_warp_absolute(cursor_, event.device, event.x, event.y);
    moved(*tool, event.time_msec);
}

void Tablet::axis(const wlr_event_tablet_tool_axis& event)
{
    activity_();
    Tool* tool = tool_for(event.tool, event.device);
    if (!tool)
        return;
    const bool x = event.updated_axes & WLR_TABLET_TOOL_AXIS_X;
    const bool y = event.updated_axes & WLR_TABLET_TOOL_AXIS_Y;
    if (x || y) {
        if (tool->relative())
            wlr_cursor_move(cursor_, event.device, event.dx, event.dy);
        else
            wlr_cursor_warp_absolute(cursor_, event.device, x ? event.x : NAN, y ? event.y : NAN);
        moved(*tool, event.time_msec);
    }
    wlr_tablet_v2_tablet_tool* v2 = tool->v2();
    if (event.updated_axes & WLR_TABLET_TOOL_AXIS_PRESSURE)
        wlr_tablet_v2_tablet_tool_notify_pressure(v2, event.pressure);
    if (event.updated_axes & WLR_TABLET_TOOL_AXIS_DISTANCE)
        wlr_tablet_v2_tablet_tool_notify_distance(v2, event.distance);
    if (event.updated_axes & WLR_TABLET_TOOL_AXIS_TILT_X)
        tool->tilt_x = event.tilt_x;
    if (event.updated_axes & WLR_TABLET_TOOL_AXIS_TILT_Y)
        tool->tilt_y = event.tilt_y;
    if (event.updated_axes & (WLR_TABLET_TOOL_AXIS_TILT_X | WLR_TABLET_TOOL_AXIS_TILT_Y))
        wlr_tablet_v2_tablet_tool_notify_tilt(v2, tool->tilt_x, tool->tilt_y);
    if (event.updated_axes & WLR_TABLET_TOOL_AXIS_ROTATION)
        wlr_tablet_v2_tablet_tool_notify_rotation(v2, event.rotation);
    if (event.updated_axes & WLR_TABLET_TOOL_AXIS_SLIDER)
        wlr_tablet_v2_tablet_tool_notify_slider(v2, event.slider);
    if (event.updated_axes & WLR_TABLET_TOOL_AXIS_WHEEL)
        wlr_tablet_v2_tablet_tool_notify_wheel(v2, event.wheel_delta, 0);
}

void Tablet::tip(const wlr_event_tablet_tool_tip& event)
{
    activity_();
    Tool* tool = tool_for(event.tool, event.device);
    if (!tool)
        return;
    wlr_tablet_v2_tablet_tool* v2 = tool->v2();
    if (emulating_tip_ && event.state == WLR_TABLET_TOOL_TIP_UP) {
        emulating_tip_ = false;
        emulation_.button(event.time_msec, BTN_LEFT, WLR_BUTTON_RELEASED);
        emulation_.frame();
        return;
    }
    if (event.state == WLR_TABLET_TOOL_TIP_UP) {
        // To the surface the tip went down on, wherever the tool is now.
        wlr_tablet_v2_tablet_tool_notify_up(v2);
        return;
    }
    const SceneHit hit = hit_at(core_, inhibit_, cursor_);
    if (!hit.surface || !wlr_surface_accepts_tablet_v2(tool->tablet, hit.surface)) {
        // A click, for a client that knows no tablets (and for kiln's own: focus, Super + drag).
        emulating_tip_ = true;
        emulation_.button(event.time_msec, BTN_LEFT, WLR_BUTTON_PRESSED);
        emulation_.frame();
        return;
    }
    // The tip focuses the window it touches, as a click does.
    if (hit.toplevel)
        windows_.touched(*hit.toplevel);
    if (v2->focused_surface != hit.surface) {
        wlr_tablet_v2_tablet_tool_notify_proximity_in(v2, tool->tablet, hit.surface);
        tool->follow(hit.node);
        wlr_tablet_v2_tablet_tool_notify_motion(v2, hit.sx, hit.sy);
    }
    wlr_tablet_v2_tablet_tool_notify_down(v2);
    wlr_tablet_tool_v2_start_implicit_grab(v2);
}

void Tablet::button(const wlr_event_tablet_tool_button& event)
{
    activity_();
    Tool* tool = tool_for(event.tool, event.device);
    if (!tool)
        return;
    const SceneHit hit = hit_at(core_, inhibit_, cursor_);
    if (!hit.surface || !wlr_surface_accepts_tablet_v2(tool->tablet, hit.surface)) {
        // Every tool button is the right button for such a client, held while any of them is.
        if (event.state == WLR_BUTTON_PRESSED) {
            if (emulated_buttons_++ == 0)
                emulation_.button(event.time_msec, BTN_RIGHT, WLR_BUTTON_PRESSED);
        } else if (emulated_buttons_ > 0 && --emulated_buttons_ == 0) {
            emulation_.button(event.time_msec, BTN_RIGHT, WLR_BUTTON_RELEASED);
        }
        emulation_.frame();
        return;
    }
    wlr_tablet_v2_tablet_tool_notify_button(tool->v2(), event.button,
                                            static_cast<zwp_tablet_pad_v2_button_state>(event.state));
}

void Tablet::leave_except(wl_client* client)
{
    for (auto& [_, tool] : tools_) {
        wlr_tablet_v2_tablet_tool* v2 = tool->v2();
        if (!v2->focused_surface || wl_resource_get_client(v2->focused_surface->resource) == client)
            continue;
        // The tip's hold on that surface ends too: the tool leaves it now, not when the tip comes up.
        if (wlr_tablet_tool_v2_has_implicit_grab(v2))
            wlr_tablet_tool_v2_end_grab(v2);
        wlr_surface* before = v2->focused_surface;
        wlr_send_tablet_v2_tablet_tool_proximity_out(v2);
        surface_changed(before, *tool);
        tool->follow(nullptr);
    }
}

void Tablet::set_cursor(Tool& tool, const wlr_tablet_v2_event_cursor& event)
{
    wlr_tablet_v2_tablet_tool* v2 = tool.v2();
    // Another client, or one answering an earlier proximity, does not get to change what the tool looks like.
    if (!v2->focused_surface || !event.seat_client ||
        event.seat_client->client != wl_resource_get_client(v2->focused_surface->resource) ||
        event.serial != v2->proximity_serial)
        return;
    image_.show_tool_image(event.surface, event.hotspot_x, event.hotspot_y);
}

void Tablet::set_tool_shape(wl_client* client, uint32_t serial, std::span<const char* const> names)
{
    for (auto& [_, tool] : tools_) {
        wlr_tablet_v2_tablet_tool* v2 = tool->v2();
        if (v2->focused_surface && wl_resource_get_client(v2->focused_surface->resource) == client &&
            serial == v2->proximity_serial) {
            image_.show_tool_shape(names);
            return;
        }
    }
}

void Tablet::surface_changed(wlr_surface* before, const Tool& tool)
{
    if (tool.v2()->focused_surface != before)
        image_.drop_tool_image();
}

}  // namespace kiln::compositor
