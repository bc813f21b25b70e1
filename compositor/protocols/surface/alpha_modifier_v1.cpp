// wp_alpha_modifier_v1 and wp_alpha_modifier_surface_v1: one object per surface (SurfaceHints), its double-buffered
// multiplier.
#include "compositor/protocols/surface/alpha_modifier_v1.hpp"

#include "alpha-modifier-v1-protocol.h"

#include <cstdint>

namespace kiln::compositor {
namespace {

void set_multiplier(wl_client*, wl_resource* object, uint32_t factor) noexcept
{
    if (!SurfaceHints::set(object, factor))
        wl_resource_post_error(object, WP_ALPHA_MODIFIER_SURFACE_V1_ERROR_NO_SURFACE, "the wl_surface is gone");
}

const struct wp_alpha_modifier_surface_v1_interface object_requests = {
    .destroy = destroy_resource,
    .set_multiplier = set_multiplier,
};

const struct wp_alpha_modifier_v1_interface manager_requests = {
    .destroy = destroy_resource,
    .get_surface = SurfaceHints::get,
};

}  // namespace

AlphaModifierV1::AlphaModifierV1(wl_display* display, std::function<void(wlr_surface*)> changed)
    : hints_({&wp_alpha_modifier_surface_v1_interface, &object_requests,
              WP_ALPHA_MODIFIER_V1_ERROR_ALREADY_CONSTRUCTED},
             UINT32_MAX, [changed = std::move(changed)](wlr_surface* surface, uint32_t) { changed(surface); }),
      global_(display, wp_alpha_modifier_v1_interface, 1, &manager_requests, &hints_)
{
}

float AlphaModifierV1::alpha(wlr_surface* surface) const
{
    return static_cast<float>(static_cast<double>(hints_.value(surface)) / UINT32_MAX);
}

}  // namespace kiln::compositor
