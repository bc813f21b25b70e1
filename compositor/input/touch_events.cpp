// Touch events as a touchscreen's driver would emit them, stamped with the monotonic clock.
#include "compositor/input/touch_events.hpp"

#include <ctime>

namespace kiln::compositor::touch_events {
namespace {

uint32_t now_msec()
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<uint32_t>(now.tv_sec * 1000 + now.tv_nsec / 1000000);
}

}  // namespace

void down(wlr_input_device* device, int32_t id, double x, double y)
{
    wlr_event_touch_down event{};
    event.device = device;
    event.time_msec = now_msec();
    event.touch_id = id;
    event.x = x;
    event.y = y;
    wl_signal_emit(&device->touch->events.down, &event);
}

void motion(wlr_input_device* device, int32_t id, double x, double y)
{
    wlr_event_touch_motion event{};
    event.device = device;
    event.time_msec = now_msec();
    event.touch_id = id;
    event.x = x;
    event.y = y;
    wl_signal_emit(&device->touch->events.motion, &event);
}

void up(wlr_input_device* device, int32_t id)
{
    wlr_event_touch_up event{};
    event.device = device;
    event.time_msec = now_msec();
    event.touch_id = id;
    wl_signal_emit(&device->touch->events.up, &event);
}

void cancel(wlr_input_device* device, int32_t id)
{
    wlr_event_touch_cancel event{};
    event.device = device;
    event.time_msec = now_msec();
    event.touch_id = id;
    wl_signal_emit(&device->touch->events.cancel, &event);
}

void frame(wlr_input_device* device)
{
    wl_signal_emit(&device->touch->events.frame, nullptr);
}

}  // namespace kiln::compositor::touch_events
