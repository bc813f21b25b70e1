// A touchscreen or a screen tablet is one output's glass: libinput names that output on DRM, and the mapping waits
// for it if it comes after the device (or comes back after a hot-unplug).
#include "compositor/input/output_mapping.hpp"

#include <cstring>

namespace kiln::compositor {

OutputMapping::OutputMapping(wlr_cursor* cursor, wlr_output_layout* layout, wlr_input_device* device)
    : cursor_(cursor), device_(device)
{
    wlr_cursor_attach_input_device(cursor, device);
    if (!device->output_name)
        return;
    wlr_output_layout_output* l_output = nullptr;
    wl_list_for_each(l_output, &layout->outputs, link)
    {
        map_to(l_output->output);
    }
    output_added_.connect(&layout->events.add, [this](void* data) {
        map_to(static_cast<wlr_output_layout_output*>(data)->output);
    });
}

void OutputMapping::map_to(wlr_output* output)
{
    if (std::strcmp(output->name, device_->output_name) == 0)
        wlr_cursor_map_input_to_output(cursor_, device_, output);
}

}  // namespace kiln::compositor
