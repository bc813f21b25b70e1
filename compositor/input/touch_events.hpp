// Touch events raised on a touch device as a touchscreen would raise them (positions in the device's 0..1 range
// over the layout), for kiln's own injection paths: the test protocol and the embedded server.
#pragma once

#include "compositor/wlr.hpp"

#include <cstdint>

namespace kiln::compositor::touch_events {

void down(wlr_input_device* device, int32_t id, double x, double y);
void motion(wlr_input_device* device, int32_t id, double x, double y);
void up(wlr_input_device* device, int32_t id);
void cancel(wlr_input_device* device, int32_t id);
void frame(wlr_input_device* device);

}  // namespace kiln::compositor::touch_events
