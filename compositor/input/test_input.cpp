// TestInput behaviour: each request becomes the event a touchscreen would raise on the headless touch device, in
// the device's 0..1 range over the layout, so it takes the same path through the cursor and the seat.
#include "compositor/input/test_input.hpp"

#include "compositor/input/seat.hpp"
#include "compositor/input/touch_events.hpp"

#include "kiln-test-input-v1-protocol.h"

namespace kiln::compositor {
namespace {

TestInput* from(wl_resource* resource)
{
    return static_cast<TestInput*>(wl_resource_get_user_data(resource));
}

// The device, and (x, y) as the fraction of the layout wlr_cursor maps a device with no output of its own to.
// False when there is no headless touch device or no output to touch.
bool locate(wl_resource* resource, wl_fixed_t x, wl_fixed_t y, wlr_input_device** device, double* fx, double* fy)
{
    TestInput* input = from(resource);
    *device = input->seat().headless_touch();
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

const struct kiln_test_input_v1_interface implementation = {
    .destroy = handle_destroy,
    .touch_down = handle_touch_down,
    .touch_motion = handle_touch_motion,
    .touch_up = handle_touch_up,
    .touch_frame = handle_touch_frame,
    .touch_cancel = handle_touch_cancel,
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
    : seat_(seat), layout_(layout), global_(wl_global_create(display, &kiln_test_input_v1_interface, 1, this, bind))
{
}

TestInput::~TestInput()
{
    if (global_)
        wl_global_destroy(global_);
}

}  // namespace kiln::compositor
