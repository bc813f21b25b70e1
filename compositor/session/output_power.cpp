// OutputPower: a client's on or off, committed to the output (wlroots tells every client of the change).
#include "compositor/session/output_power.hpp"

#include "compositor/log.hpp"

#include <cstdio>

namespace kiln::compositor {

OutputPower::OutputPower(wl_display* display) : manager_(wlr_output_power_manager_v1_create(display))
{
    set_mode_.connect(&manager_->events.set_mode, [this](void* data) {
        auto* event = static_cast<wlr_output_power_v1_set_mode_event*>(data);
        wlr_output_enable(event->output, event->mode == ZWLR_OUTPUT_POWER_V1_MODE_ON);
        if (wlr_output_commit(event->output))
            return;  // wlroots tells every client of the output's new mode
        // The backend cannot turn it off (headless and nested outputs cannot be disabled in wlroots 0.15): the
        // protocol's answer for an output without power management is `failed`, to every client controlling it.
        log::error("output %s cannot be turned %s", event->output->name,
                   event->mode == ZWLR_OUTPUT_POWER_V1_MODE_ON ? "on" : "off");
        wlr_output_power_v1* power = nullptr;
        wl_list_for_each(power, &manager_->output_powers, link)
        {
            if (power->output == event->output)
                zwlr_output_power_v1_send_failed(power->resource);
        }
    });
}

}  // namespace kiln::compositor
