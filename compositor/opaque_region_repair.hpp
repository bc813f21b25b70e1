// OpaqueRegionRepair: frees the opaque-region boxes wlroots 0.15 loses when a surface's buffer turns opaque.
//
// After each commit wlroots 0.15 recomputes wlr_surface.opaque_region; for an opaque buffer (xrgb and the like) it
// does so with pixman_region32_init_rect over the old region without finishing it, so the old boxes (a client's
// opaque region of more than one rectangle, cut to the surface) are never freed: a client redrawing with argb and
// xrgb buffers in turn leaked them at every switch (wlroots 0.16 finishes the region first). kiln keeps the region
// as each commit leaves it and, when the next commit dropped it that way, finishes it.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <memory>

namespace kiln::compositor {

class OpaqueRegionRepair {
public:
    // Watches every wl_surface `compositor` makes from now on.
    explicit OpaqueRegionRepair(wlr_compositor* compositor);
    ~OpaqueRegionRepair();
    OpaqueRegionRepair(const OpaqueRegionRepair&) = delete;
    OpaqueRegionRepair& operator=(const OpaqueRegionRepair&) = delete;

private:
    class Watch;

    IndexedList<std::unique_ptr<Watch>> watches_;  // one per wl_surface: removed in O(1)
    wl::Listener new_surface_;
};

}  // namespace kiln::compositor
