// TearingControlV1: wp_tearing_control_manager_v1, a surface's presentation hint (vsync or async), kept per surface
// with its commits. kiln keeps vsync for every frame whatever the hint (no output of kiln flips asynchronously); the
// hint is kept and counted in the stats (surfaces.tearing_async: surfaces asking async now).
#pragma once

#include "compositor/protocol_kit/per_surface_object.hpp"
#include "compositor/protocol_kit/surface_hints.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>

namespace kiln::compositor {

class TearingControlV1 {
public:
    explicit TearingControlV1(wl_display* display);
    TearingControlV1(const TearingControlV1&) = delete;
    TearingControlV1& operator=(const TearingControlV1&) = delete;

    // The committed wp_tearing_control_v1.presentation_hint of `surface` (0, vsync, without one).
    uint32_t presentation_hint(wlr_surface* surface) const { return hints_.value(surface); }
    uint64_t surfaces_with(uint32_t hint) const { return hints_.count(hint); }

private:
    SurfaceHints hints_;
    ManagerGlobal global_;
};

}  // namespace kiln::compositor
