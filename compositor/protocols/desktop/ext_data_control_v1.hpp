// ExtDataControlV1: ext_data_control_manager_v1, clipboard managers (wl-clipboard >= 2.2, KDE's Klipper): a client
// reads the seat's selection and primary selection as they change and may set either, without focus or a serial.
// kiln's own (wlroots 0.15 has only the wlr-data-control one, which kiln offers beside it).
//
// It reads what every client copies, so --restrict data-control hides it (and wlr-data-control).
#pragma once

#include "compositor/wlr.hpp"

namespace kiln::compositor {

class ExtDataControlV1 {
public:
    ExtDataControlV1(wl_display* display, wlr_seat* seat);
    ~ExtDataControlV1();
    ExtDataControlV1(const ExtDataControlV1&) = delete;
    ExtDataControlV1& operator=(const ExtDataControlV1&) = delete;

    const wl_global* global() const { return global_; }

    struct Device;
    struct Source;

private:
    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;

    wl_display* display_;
    wlr_seat* seat_;
    wl_global* global_;
};

}  // namespace kiln::compositor
