// OutputMapping: an absolute input device (touchscreen, tablet) on the cursor, mapped onto the output its name says
// as that output comes and goes; a device that names none (an ordinary tablet, headless) spans the layout.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class OutputMapping {
public:
    // Attaches `device` to `cursor`; wlr_cursor detaches it itself when the device is destroyed.
    OutputMapping(wlr_cursor* cursor, wlr_output_layout* layout, wlr_input_device* device);
    OutputMapping(const OutputMapping&) = delete;
    OutputMapping& operator=(const OutputMapping&) = delete;

private:
    void map_to(wlr_output* output);

    wlr_cursor* cursor_;
    wlr_input_device* device_;
    wl::Listener output_added_;
};

}  // namespace kiln::compositor
