// FractionalScaleV1: wp_fractional_scale_manager_v1 (wlroots 0.15 lacks it): tells each client that asks the scale
// its surface is shown at, in 120ths, so with wp_viewporter it draws exactly the output's pixels at 1.25 or 1.5
// instead of drawing at 2x for kiln to scale down.
//
// The preferred scale of a surface is the highest scale of the outputs it is on (wlr_surface::current_outputs,
// which the scene keeps); before it is on any, the highest scale of all outputs, so a first frame is never blurred.
// It is sent when the object is made, and again when it changes: looked at on each commit of the surface, on every
// change of the output layout (an output added, removed, or given another scale), and on each output's frame, which
// follows any move of a window (the scene updates a surface's outputs as its node moves, and tells no one).
#pragma once

#include "compositor/listener.hpp"
#include "compositor/protocol_kit/per_surface_object.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <list>

namespace kiln::compositor {

class FractionalScaleV1 {
public:
    FractionalScaleV1(wl_display* display, wlr_output_layout* layout);
    FractionalScaleV1(const FractionalScaleV1&) = delete;
    FractionalScaleV1& operator=(const FractionalScaleV1&) = delete;

    // The scale, in 120ths, a surface on these outputs is told (exposed for the wire tests' reasoning and stats).
    static uint32_t to_120ths(float scale);

    // One wp_fractional_scale_v1: what it was last told, and its surface's commits, which may change that.
    struct Object : PerSurfaceObject {
        uint32_t sent = 0;  // 0: nothing sent yet
        wl::Listener commit;
        void leave_surface() { commit.disconnect(); }
    };

    // The manager's get_fractional_scale: the object is told its scale at once, and again when it changes.
    static void get_fractional_scale(wl_client* client, wl_resource* manager, uint32_t id,
                                     wl_resource* surface) noexcept;

private:
    void update(Object& object);
    void update_all();
    uint32_t preferred(wlr_surface* surface) const;

    wlr_output_layout* layout_;
    PerSurfaceObjects<Object> objects_;
    ManagerGlobal global_;
    wl::Listener layout_change_;
    std::list<wl::Listener> output_frames_;  // one per output in the layout
};

}  // namespace kiln::compositor
