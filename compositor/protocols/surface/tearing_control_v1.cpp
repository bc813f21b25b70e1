// wp_tearing_control_manager_v1 and wp_tearing_control_v1: one object per surface (SurfaceHints), its
// double-buffered hint.
#include "compositor/protocols/surface/tearing_control_v1.hpp"

#include "tearing-control-v1-protocol.h"

namespace kiln::compositor {
namespace {

void set_presentation_hint(wl_client*, wl_resource* object, uint32_t hint) noexcept
{
    if (!wp_tearing_control_v1_presentation_hint_is_valid(hint, wl_resource_get_version(object))) {
        wl_resource_post_error(object, WL_DISPLAY_ERROR_INVALID_METHOD, "%u is not a presentation hint", hint);
        return;
    }
    SurfaceHints::set(object, hint);  // an inert object's hint is dropped
}

const struct wp_tearing_control_v1_interface object_requests = {
    .set_presentation_hint = set_presentation_hint,
    .destroy = destroy_resource,
};

const struct wp_tearing_control_manager_v1_interface manager_requests = {
    .destroy = destroy_resource,
    .get_tearing_control = SurfaceHints::get,
};

}  // namespace

TearingControlV1::TearingControlV1(wl_display* display)
    : hints_({&wp_tearing_control_v1_interface, &object_requests,
              WP_TEARING_CONTROL_MANAGER_V1_ERROR_TEARING_CONTROL_EXISTS},
             WP_TEARING_CONTROL_V1_PRESENTATION_HINT_VSYNC),
      global_(display, wp_tearing_control_manager_v1_interface, 1, &manager_requests, &hints_)
{
}

}  // namespace kiln::compositor
