// Touch behaviour: a point goes down on the surface under it (focusing its window, as a click does), its motion
// stays with that surface wherever the finger goes, and up or cancel ends it; a reused id is ignored while down.
#include "compositor/input/touch.hpp"

#include "compositor/input/input_inhibit.hpp"
#include "compositor/input/output_mapping.hpp"
#include "compositor/input/scene_hit.hpp"
#include "compositor/input/window_input.hpp"
#include "compositor/core.hpp"

#include <algorithm>
#include <ctime>
#include <vector>

namespace kiln::compositor {
namespace {

// A touch grab that sends nothing: with it, wlr_seat_touch_notify_up frees a point without a wl_touch.up.
// wlroots 0.15 has no other way to end a point (wl_touch.cancel leaves them all in the seat).
uint32_t silent_down(wlr_seat_touch_grab*, uint32_t, wlr_touch_point*) noexcept { return 0; }
void silent_point(wlr_seat_touch_grab*, uint32_t, wlr_touch_point*) noexcept {}
void silent_frame(wlr_seat_touch_grab*) noexcept {}
void silent_wl_cancel(wlr_seat_touch_grab*, wlr_surface*) noexcept {}

const wlr_touch_grab_interface silent_grab_interface = {
    .down = silent_down,
    .up = silent_point,
    .motion = silent_point,
    .enter = silent_point,
    .frame = silent_frame,
    .cancel = silent_frame,
    .wl_cancel = silent_wl_cancel,
};

}  // namespace

// One touch device on the cursor; it leaves the seat's capabilities when it goes.
class Touch::Device {
public:
    Device(Touch& touch, wlr_input_device* device)
        : touch_(touch), device_(device), mapping_(touch.cursor_, touch.core_.layout, device)
    {
        destroy_.connect(&device->events.destroy, [this](void*) {
            Touch& touch = touch_;
            touch.devices_.erase(this);
            touch.changed_();
        });
    }

    wlr_input_device* device() const { return device_; }

private:
    Touch& touch_;
    wlr_input_device* device_;
    OutputMapping mapping_;
    wl::Listener destroy_;
};

// Where a touch point went down: its surface's scene node, for surface-local motion while the finger moves.
struct Touch::Point {
    wlr_scene_node* node;
    wl::Listener node_destroy;

    // `gone`: called when the surface's node goes (the surface destroyed or unmapped).
    Point(wlr_scene_node* n, std::function<void()> gone) : node(n)
    {
        node_destroy.connect(&n->events.destroy, [this, gone = std::move(gone)](void*) {
            node = nullptr;
            node_destroy.disconnect();
            gone();
        });
    }
};

Touch::Touch(const Core& core, WindowInput& windows, const InputInhibit& inhibit, wlr_seat* seat, wlr_cursor* cursor,
             std::function<void()> changed, std::function<void()> activity)
    : core_(core), windows_(windows), inhibit_(inhibit), seat_(seat), cursor_(cursor), changed_(std::move(changed)),
      activity_(std::move(activity))
{
    down_.connect(&cursor_->events.touch_down,
                  [this](void* data) { down(*static_cast<wlr_event_touch_down*>(data)); });
    motion_.connect(&cursor_->events.touch_motion,
                    [this](void* data) { motion(*static_cast<wlr_event_touch_motion*>(data)); });
    up_.connect(&cursor_->events.touch_up, [this](void* data) { up(*static_cast<wlr_event_touch_up*>(data)); });
    cancel_.connect(&cursor_->events.touch_cancel,
                    [this](void* data) { cancel(*static_cast<wlr_event_touch_cancel*>(data)); });
    frame_.connect(&cursor_->events.touch_frame, [this](void*) { wlr_seat_touch_notify_frame(seat_); });
}

Touch::~Touch()
{
    for (wl::Listener* listener : {&down_, &motion_, &up_, &cancel_, &frame_})
        listener->disconnect();
    points_.clear();
    devices_.clear();
}

void Touch::add_device(wlr_input_device* device)
{
    devices_.push_back(std::make_unique<Device>(*this, device));
}

wlr_input_device* Touch::headless_device() const
{
    for (const auto& d : devices_)
        if (wlr_input_device_is_headless(d->device()))
            return d->device();
    return nullptr;
}

void Touch::down(const wlr_event_touch_down& event)
{
    activity_();
    // An id already down (a confused device, or a test reusing one) would give wlroots two points with one id,
    // and one of them would never go up: the second down is ignored.
    if (wlr_seat_touch_get_point(seat_, event.touch_id))
        return;
    points_.erase(event.touch_id);  // a point whose client went away: wlroots forgot it, so does kiln
    double lx = 0;
    double ly = 0;
    wlr_cursor_absolute_to_layout_coords(cursor_, event.device, event.x, event.y, &lx, &ly);
    const SceneHit hit = scene_hit(core_.scene, lx, ly);
    if (!hit.surface || !inhibit_.allows(hit.surface))
        return;
    if (hit.toplevel)
        windows_.touched(*hit.toplevel);
    // A client without a wl_touch gets no point (wlroots would log an error for each).
    if (!wlr_surface_accepts_touch(seat_, hit.surface))
        return;
    if (wlr_seat_touch_notify_down(seat_, hit.surface, event.time_msec, event.touch_id, hit.sx, hit.sy) != 0) {
        const int32_t id = event.touch_id;
        points_.emplace(id, std::make_unique<Point>(hit.node, [this, id] { end_on_surface_gone(id); }));
    }
}

// The surface a point is down on went away: the client hears the point go up now, and a frame, so it keeps no
// touch on a surface it no longer has (wlroots 0.15 would send the up only when the finger lifts). The finger's
// own up later finds no point and sends nothing.
void Touch::end_on_surface_gone(int32_t touch_id)
{
    if (!wlr_seat_touch_get_point(seat_, touch_id))
        return;
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    const auto msec = static_cast<uint32_t>(now.tv_sec * 1000 + now.tv_nsec / 1000000);
    wlr_seat_touch_notify_up(seat_, msec, touch_id);
    wlr_seat_touch_notify_frame(seat_);
}

void Touch::motion(const wlr_event_touch_motion& event)
{
    activity_();
    auto it = points_.find(event.touch_id);
    if (it == points_.end() || !it->second->node || !wlr_seat_touch_get_point(seat_, event.touch_id))
        return;
    double lx = 0;
    double ly = 0;
    wlr_cursor_absolute_to_layout_coords(cursor_, event.device, event.x, event.y, &lx, &ly);
    // Relative to the surface the point went down on, wherever that surface is now: motion over another window
    // still belongs to the first one.
    int nx = 0;
    int ny = 0;
    wlr_scene_node_coords(it->second->node, &nx, &ny);
    wlr_seat_touch_notify_motion(seat_, event.time_msec, event.touch_id, lx - nx, ly - ny);
}

void Touch::up(const wlr_event_touch_up& event)
{
    activity_();
    points_.erase(event.touch_id);
    wlr_seat_touch_notify_up(seat_, event.time_msec, event.touch_id);
}

void Touch::cancel(const wlr_event_touch_cancel& event)
{
    activity_();
    wlr_touch_point* point = wlr_seat_touch_get_point(seat_, event.touch_id);
    if (!point)
        return;
    // wl_touch.cancel ends the client's whole sequence: every point of that client goes with it.
    cancel_client(point->client);
}

void Touch::cancel_client(wlr_seat_client* client)
{
    wl_resource* resource = nullptr;
    wl_resource_for_each(resource, &client->touches)
    {
        if (wl_resource_get_user_data(resource))  // null: an inert wl_touch (the seat lost touch meanwhile)
            wl_touch_send_cancel(resource);
    }
    drop_points(client);
}

void Touch::cancel_except(wl_client* client)
{
    std::vector<wlr_seat_client*> others;
    wlr_touch_point* point = nullptr;
    wl_list_for_each(point, &seat_->touch_state.touch_points, link)
    {
        if (point->client && point->client->client != client &&
            std::find(others.begin(), others.end(), point->client) == others.end())
            others.push_back(point->client);
    }
    for (wlr_seat_client* other : others)
        cancel_client(other);
}

void Touch::drop_points(wlr_seat_client* client)
{
    std::vector<int32_t> ids;
    wlr_touch_point* point = nullptr;
    wl_list_for_each(point, &seat_->touch_state.touch_points, link)
    {
        if (point->client == client)
            ids.push_back(point->touch_id);
    }
    wlr_seat_touch_grab* previous = seat_->touch_state.grab;
    wlr_seat_touch_grab silent{&silent_grab_interface, seat_, nullptr};
    wlr_seat_touch_start_grab(seat_, &silent);
    for (int32_t id : ids) {
        points_.erase(id);
        wlr_seat_touch_notify_up(seat_, 0, id);
    }
    if (previous != seat_->touch_state.default_grab)
        wlr_seat_touch_start_grab(seat_, previous);
    else
        wlr_seat_touch_end_grab(seat_);
}

}  // namespace kiln::compositor
