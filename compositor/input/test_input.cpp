// TestInput behaviour: each request becomes the event a touchscreen, a tablet or a touchpad would raise on the
// headless touch, tablet or pointer device (positions in the device's 0..1 range over the layout), so it takes the
// same path through the cursor and the seat; an unplugged output is destroyed, as a DRM connector's is.
#include "compositor/input/test_input.hpp"

#include "compositor/input/seat.hpp"
#include "compositor/input/touch_events.hpp"

#include "kiln-test-input-v1-protocol.h"

#include <cstring>

#include <ctime>

namespace kiln::compositor {
namespace {

uint32_t now_msec()
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<uint32_t>(now.tv_sec * 1000 + now.tv_nsec / 1000000);
}

TestInput* from(wl_resource* resource)
{
    return static_cast<TestInput*>(wl_resource_get_user_data(resource));
}

// The device, and (x, y) as the fraction of the layout wlr_cursor maps a device with no output of its own to.
// False when there is no such headless device (touch, or the tablet) or no output to reach.
bool locate(wl_resource* resource, wl_fixed_t x, wl_fixed_t y, wlr_input_device** device, double* fx, double* fy,
            bool tablet = false)
{
    TestInput* input = from(resource);
    *device = tablet ? input->seat().headless_tablet() : input->seat().headless_touch();
    const wlr_box* box = wlr_output_layout_get_box(input->layout(), nullptr);
    if (!*device || !box || box->width <= 0 || box->height <= 0)
        return false;
    *fx = (wl_fixed_to_double(x) - box->x) / box->width;
    *fy = (wl_fixed_to_double(y) - box->y) / box->height;
    return true;
}

void handle_destroy(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

void handle_touch_down(wl_client*, wl_resource* resource, int32_t id, wl_fixed_t x, wl_fixed_t y) noexcept
{
    wlr_input_device* device = nullptr;
    double fx = 0, fy = 0;
    if (locate(resource, x, y, &device, &fx, &fy))
        touch_events::down(device, id, fx, fy);
}

void handle_touch_motion(wl_client*, wl_resource* resource, int32_t id, wl_fixed_t x, wl_fixed_t y) noexcept
{
    wlr_input_device* device = nullptr;
    double fx = 0, fy = 0;
    if (locate(resource, x, y, &device, &fx, &fy))
        touch_events::motion(device, id, fx, fy);
}

void handle_touch_up(wl_client*, wl_resource* resource, int32_t id) noexcept
{
    if (wlr_input_device* device = from(resource)->seat().headless_touch())
        touch_events::up(device, id);
}

void handle_touch_frame(wl_client*, wl_resource* resource) noexcept
{
    if (wlr_input_device* device = from(resource)->seat().headless_touch())
        touch_events::frame(device);
}

void handle_touch_cancel(wl_client*, wl_resource* resource, int32_t id) noexcept
{
    if (wlr_input_device* device = from(resource)->seat().headless_touch())
        touch_events::cancel(device, id);
}

void handle_tablet_tool_proximity(wl_resource* resource, wl_fixed_t x, wl_fixed_t y, bool in)
{
    wlr_input_device* device = nullptr;
    double fx = 0, fy = 0;
    if (!locate(resource, x, y, &device, &fx, &fy, true))
        return;
    wlr_event_tablet_tool_proximity event{};
    event.device = device;
    event.tool = from(resource)->pen();
    event.time_msec = now_msec();
    event.x = fx;
    event.y = fy;
    event.state = in ? WLR_TABLET_TOOL_PROXIMITY_IN : WLR_TABLET_TOOL_PROXIMITY_OUT;
    wl_signal_emit(&device->tablet->events.proximity, &event);
}

void handle_tablet_tool_proximity_in(wl_client*, wl_resource* resource, wl_fixed_t x, wl_fixed_t y) noexcept
{
    handle_tablet_tool_proximity(resource, x, y, true);
}

void handle_tablet_tool_motion(wl_client*, wl_resource* resource, wl_fixed_t x, wl_fixed_t y) noexcept
{
    wlr_input_device* device = nullptr;
    double fx = 0, fy = 0;
    if (!locate(resource, x, y, &device, &fx, &fy, true))
        return;
    wlr_event_tablet_tool_axis event{};
    event.device = device;
    event.tool = from(resource)->pen();
    event.time_msec = now_msec();
    event.updated_axes = WLR_TABLET_TOOL_AXIS_X | WLR_TABLET_TOOL_AXIS_Y;
    event.x = fx;
    event.y = fy;
    wl_signal_emit(&device->tablet->events.axis, &event);
}

void handle_tablet_tool_tip(wl_client*, wl_resource* resource, uint32_t down) noexcept
{
    wlr_input_device* device = from(resource)->seat().headless_tablet();
    if (!device)
        return;
    wlr_event_tablet_tool_tip event{};
    event.device = device;
    event.tool = from(resource)->pen();
    event.time_msec = now_msec();
    event.state = down ? WLR_TABLET_TOOL_TIP_DOWN : WLR_TABLET_TOOL_TIP_UP;
    wl_signal_emit(&device->tablet->events.tip, &event);
}

void handle_tablet_tool_proximity_out(wl_client*, wl_resource* resource) noexcept
{
    // Out where it is: the position a proximity-out carries is not used.
    handle_tablet_tool_proximity(resource, 0, 0, false);
}

// A touchpad gesture raised on the headless pointer, as libinput's backend raises it on a touchpad: wlr_cursor
// relays it to the cursor's gesture signals, which pointer-gestures forwards to the surface under the pointer.
using PointerEvents = decltype(wlr_pointer::events);

template <typename Event>
void emit_gesture(wl_resource* resource, wl_signal PointerEvents::*signal, Event event)
{
    wlr_input_device* device = from(resource)->seat().headless_pointer();
    if (!device)
        return;
    event.device = device;
    event.time_msec = now_msec();
    wl_signal_emit(&(device->pointer->events.*signal), &event);
}

void handle_pointer_swipe_begin(wl_client*, wl_resource* resource, uint32_t fingers) noexcept
{
    wlr_event_pointer_swipe_begin event{};
    event.fingers = fingers;
    emit_gesture(resource, &PointerEvents::swipe_begin, event);
}

void handle_pointer_swipe_update(wl_client*, wl_resource* resource, wl_fixed_t dx, wl_fixed_t dy) noexcept
{
    wlr_event_pointer_swipe_update event{};
    event.dx = wl_fixed_to_double(dx);
    event.dy = wl_fixed_to_double(dy);
    emit_gesture(resource, &PointerEvents::swipe_update, event);
}

void handle_pointer_swipe_end(wl_client*, wl_resource* resource, uint32_t cancelled) noexcept
{
    wlr_event_pointer_swipe_end event{};
    event.cancelled = cancelled != 0;
    emit_gesture(resource, &PointerEvents::swipe_end, event);
}

void handle_pointer_pinch_begin(wl_client*, wl_resource* resource, uint32_t fingers) noexcept
{
    wlr_event_pointer_pinch_begin event{};
    event.fingers = fingers;
    emit_gesture(resource, &PointerEvents::pinch_begin, event);
}

void handle_pointer_pinch_update(wl_client*, wl_resource* resource, wl_fixed_t dx, wl_fixed_t dy, wl_fixed_t scale,
                                 wl_fixed_t rotation) noexcept
{
    wlr_event_pointer_pinch_update event{};
    event.dx = wl_fixed_to_double(dx);
    event.dy = wl_fixed_to_double(dy);
    event.scale = wl_fixed_to_double(scale);
    event.rotation = wl_fixed_to_double(rotation);
    emit_gesture(resource, &PointerEvents::pinch_update, event);
}

void handle_pointer_pinch_end(wl_client*, wl_resource* resource, uint32_t cancelled) noexcept
{
    wlr_event_pointer_pinch_end event{};
    event.cancelled = cancelled != 0;
    emit_gesture(resource, &PointerEvents::pinch_end, event);
}

void handle_pointer_hold_begin(wl_client*, wl_resource* resource, uint32_t fingers) noexcept
{
    wlr_event_pointer_hold_begin event{};
    event.fingers = fingers;
    emit_gesture(resource, &PointerEvents::hold_begin, event);
}

void handle_pointer_hold_end(wl_client*, wl_resource* resource, uint32_t cancelled) noexcept
{
    wlr_event_pointer_hold_end event{};
    event.cancelled = cancelled != 0;
    emit_gesture(resource, &PointerEvents::hold_end, event);
}

void handle_unplug_output(wl_client*, wl_resource* resource, const char* name) noexcept
{
    auto* self = static_cast<TestInput*>(wl_resource_get_user_data(resource));
    wlr_output_layout_output* placed = nullptr;
    wl_list_for_each(placed, &self->layout()->outputs, link)
    {
        if (std::strcmp(placed->output->name, name) == 0 && wlr_output_is_headless(placed->output)) {
            wlr_output_destroy(placed->output);
            return;
        }
    }
    wl_resource_post_error(resource, KILN_TEST_INPUT_V1_ERROR_NO_SUCH_OUTPUT, "no headless output '%s' in the layout",
                           name);
}

const struct kiln_test_input_v1_interface implementation = {
    .destroy = handle_destroy,
    .touch_down = handle_touch_down,
    .touch_motion = handle_touch_motion,
    .touch_up = handle_touch_up,
    .touch_frame = handle_touch_frame,
    .touch_cancel = handle_touch_cancel,
    .tablet_tool_proximity_in = handle_tablet_tool_proximity_in,
    .tablet_tool_motion = handle_tablet_tool_motion,
    .tablet_tool_tip = handle_tablet_tool_tip,
    .tablet_tool_proximity_out = handle_tablet_tool_proximity_out,
    .pointer_swipe_begin = handle_pointer_swipe_begin,
    .pointer_swipe_update = handle_pointer_swipe_update,
    .pointer_swipe_end = handle_pointer_swipe_end,
    .pointer_pinch_begin = handle_pointer_pinch_begin,
    .pointer_pinch_update = handle_pointer_pinch_update,
    .pointer_pinch_end = handle_pointer_pinch_end,
    .pointer_hold_begin = handle_pointer_hold_begin,
    .pointer_hold_end = handle_pointer_hold_end,
    .unplug_output = handle_unplug_output,
};

void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource = wl_resource_create(client, &kiln_test_input_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &implementation, data, nullptr);
}

}  // namespace

TestInput::TestInput(wl_display* display, Seat& seat, wlr_output_layout* layout)
    : seat_(seat), layout_(layout), global_(wl_global_create(display, &kiln_test_input_v1_interface, 4, this, bind))
{
    // A pen with pressure, as most are.
    pen_.type = WLR_TABLET_TOOL_TYPE_PEN;
    pen_.pressure = true;
    wl_signal_init(&pen_.events.destroy);
}

TestInput::~TestInput()
{
    // As a driver does when its tablet goes: the seat and tablet-v2 let go of the pen.
    wl_signal_emit(&pen_.events.destroy, &pen_);
    if (global_)
        wl_global_destroy(global_);
}

}  // namespace kiln::compositor
