// Viewporter: wp_viewporter, kiln's own, with the errors wlroots 0.15's raises wrongly or not at all.
//
// wlroots 0.15 lets a client make a second wp_viewport for one surface (the protocol's viewport_exists) and checks
// the source rectangle after the commit, against state already moved on, so a source outside the buffer goes by
// (out_of_buffer) while a fractional one is caught only by chance. kiln's viewports set the same wlr_surface state
// wlroots' would (scene and renderer read it unchanged) and check each wl_surface.commit before libwayland runs it.
#pragma once

#include "compositor/protocol_kit/per_surface_object.hpp"
#include "compositor/protocol_kit/request_hooks.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class Viewporter {
public:
    // Checks each wl_surface.commit through `hooks`; must be destroyed before them and the display.
    Viewporter(wl_display* display, RequestHooks& hooks);
    Viewporter(const Viewporter&) = delete;
    Viewporter& operator=(const Viewporter&) = delete;

    // One surface's wp_viewport; it sets the surface's pending viewport state directly.
    struct Viewport : PerSurfaceObject {
        // The client destroyed the viewport: the surface is shown unscaled and uncropped from its next commit.
        void released();
    };

private:
    void check_commit(wlr_surface* surface) const;

    PerSurfaceObjects<Viewport> viewports_;
    ManagerGlobal global_;
    RequestTable::Hook hook_;
};

}  // namespace kiln::compositor
