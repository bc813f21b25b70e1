// wp_alpha_modifier_v1 and wp_alpha_modifier_surface_v1: one object per surface, its double-buffered multiplier.
#include "compositor/protocols/alpha_modifier_v1.hpp"

#include "alpha-modifier-v1-protocol.h"

#include <cstdint>

namespace kiln::compositor {
namespace {

void destroy_object(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

void set_multiplier(wl_client*, wl_resource* object, uint32_t factor) noexcept
{
    SurfaceHints* hints = SurfaceHints::from(object);  // null: get_surface failed
    if (!hints)
        return;
    if (!hints->surface_of(object)) {
        wl_resource_post_error(object, WP_ALPHA_MODIFIER_SURFACE_V1_ERROR_NO_SURFACE, "the wl_surface is gone");
        return;
    }
    hints->set(object, factor);
}

const struct wp_alpha_modifier_surface_v1_interface object_requests = {
    .destroy = destroy_object,
    .set_multiplier = set_multiplier,
};

void get_surface(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface_resource) noexcept
{
    auto* hints = static_cast<SurfaceHints*>(wl_resource_get_user_data(manager));
    wl_resource* object =
        wl_resource_create(client, &wp_alpha_modifier_surface_v1_interface, wl_resource_get_version(manager), id);
    if (!object) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(object, &object_requests, nullptr, [](wl_resource* object) noexcept {
        if (SurfaceHints* hints = SurfaceHints::from(object))
            hints->detach(object);
    });
    if (!hints->attach(wlr_surface_from_resource(surface_resource), object))
        wl_resource_post_error(manager, WP_ALPHA_MODIFIER_V1_ERROR_ALREADY_CONSTRUCTED,
                               "the surface has a wp_alpha_modifier_surface_v1 already");
}

const struct wp_alpha_modifier_v1_interface manager_requests = {
    .destroy = destroy_object,
    .get_surface = get_surface,
};

}  // namespace

AlphaModifierV1::AlphaModifierV1(wl_display* display, std::function<void(wlr_surface*)> changed)
    : hints_(UINT32_MAX, [changed = std::move(changed)](wlr_surface* surface, uint32_t) { changed(surface); }),
      global_(wl_global_create(display, &wp_alpha_modifier_v1_interface, 1, &hints_, bind))
{
}

AlphaModifierV1::~AlphaModifierV1()
{
    if (global_)
        wl_global_destroy(global_);
}

float AlphaModifierV1::alpha(wlr_surface* surface) const
{
    return static_cast<float>(static_cast<double>(hints_.value(surface)) / UINT32_MAX);
}

void AlphaModifierV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource = wl_resource_create(client, &wp_alpha_modifier_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &manager_requests, data, nullptr);
}

}  // namespace kiln::compositor
