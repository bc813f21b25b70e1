// RelativePointer: relative-pointer-v1, the pointer's raw motion (games, 3D views, remote desktops) sent to the
// client with pointer focus alongside wl_pointer.motion.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class RelativePointer {
public:
    RelativePointer(wl_display* display, wlr_seat* seat, wlr_cursor* cursor);
    RelativePointer(const RelativePointer&) = delete;
    RelativePointer& operator=(const RelativePointer&) = delete;

private:
    wlr_relative_pointer_manager_v1* manager_;
    wlr_seat* seat_;
    wl::Listener motion_;
};

}  // namespace kiln::compositor
