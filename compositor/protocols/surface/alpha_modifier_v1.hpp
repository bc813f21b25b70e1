// AlphaModifierV1: wp_alpha_modifier_v1, a surface's opacity factor (Wine's windows fading), kept per surface with
// its commits; kiln's frame pipeline multiplies it into the surface's pixels (VisibleNode::alpha, drawn by GL and by
// the CPU composition alike), and a surface below 1 covers nothing, so what is under it is drawn.
#pragma once

#include "compositor/protocol_kit/per_surface_object.hpp"
#include "compositor/protocol_kit/surface_hints.hpp"
#include "compositor/wlr.hpp"

#include <functional>

namespace kiln::compositor {

class AlphaModifierV1 {
public:
    // `changed` is called when a commit changes a surface's factor (its pixels on screen change with no damage).
    AlphaModifierV1(wl_display* display, std::function<void(wlr_surface*)> changed);
    AlphaModifierV1(const AlphaModifierV1&) = delete;
    AlphaModifierV1& operator=(const AlphaModifierV1&) = delete;

    // The committed factor of `surface`, 0 (transparent) to 1 (as drawn).
    float alpha(wlr_surface* surface) const;

private:
    SurfaceHints hints_;
    ManagerGlobal global_;
};

}  // namespace kiln::compositor
