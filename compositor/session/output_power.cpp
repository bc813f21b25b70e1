// OutputPower: a client's on or off, committed to the output (wlroots tells every client of the change).
#include "compositor/session/output_power.hpp"

#include <cstdio>

namespace kiln::compositor {

OutputPower::OutputPower(wl_display* display) : manager_(wlr_output_power_manager_v1_create(display))
{
    set_mode_.connect(&manager_->events.set_mode, [](void* data) {
        auto* event = static_cast<wlr_output_power_v1_set_mode_event*>(data);
        wlr_output_enable(event->output, event->mode == ZWLR_OUTPUT_POWER_V1_MODE_ON);
        if (!wlr_output_commit(event->output))
            std::fprintf(stderr, "kiln: cannot turn output %s %s\n", event->output->name,
                         event->mode == ZWLR_OUTPUT_POWER_V1_MODE_ON ? "on" : "off");
    });
}

}  // namespace kiln::compositor
