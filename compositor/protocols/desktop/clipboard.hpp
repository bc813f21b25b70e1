// Clipboard: the selection protocols beyond wl_data_device: primary selection (middle-click paste) and
// wlr-data-control (clipboard managers, wl-copy/wl-paste), both acting on the one seat.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class Clipboard {
public:
    Clipboard(wl_display* display, wlr_seat* seat);
    Clipboard(const Clipboard&) = delete;
    Clipboard& operator=(const Clipboard&) = delete;

    // wlr-data-control's global, privileged (it reads and sets the clipboard without focus).
    const wl_global* data_control_global() const { return data_control_->global; }

private:
    wlr_seat* seat_;
    wlr_data_control_manager_v1* data_control_;
    wl::Listener request_primary_;
};

}  // namespace kiln::compositor
