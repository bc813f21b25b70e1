// OutputPower: wlr-output-power-management-v1 (wlopm, swayidle's "output off"): an output turned off keeps its
// place in the layout and comes back as it was.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class OutputPower {
public:
    explicit OutputPower(wl_display* display);
    OutputPower(const OutputPower&) = delete;
    OutputPower& operator=(const OutputPower&) = delete;

    const wl_global* global() const { return manager_->global; }

private:
    wlr_output_power_manager_v1* manager_;
    wl::Listener set_mode_;
};

}  // namespace kiln::compositor
