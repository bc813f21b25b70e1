// ContentTypeV1: wp_content_type_manager_v1, a surface's content type hint (none, photo, video, game), kept per
// surface with its commits. kiln schedules every surface alike today; the hint is kept for that and counted in the
// stats (surfaces.content_type_*: surfaces with each type committed).
#pragma once

#include "compositor/protocol_kit/per_surface_object.hpp"
#include "compositor/protocol_kit/surface_hints.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>

namespace kiln::compositor {

class ContentTypeV1 {
public:
    explicit ContentTypeV1(wl_display* display);
    ContentTypeV1(const ContentTypeV1&) = delete;
    ContentTypeV1& operator=(const ContentTypeV1&) = delete;

    // The committed wp_content_type_v1.type of `surface` (0, none, without a hint).
    uint32_t content_type(wlr_surface* surface) const { return hints_.value(surface); }
    uint64_t surfaces_with(uint32_t type) const { return hints_.count(type); }

private:
    SurfaceHints hints_;
    ManagerGlobal global_;
};

}  // namespace kiln::compositor
