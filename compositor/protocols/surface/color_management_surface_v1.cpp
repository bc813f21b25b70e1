// SurfaceColours: the surface object's requests (inert, image_description and render_intent errors) and the
// committed values (a CommittedValues, as SurfaceHints keeps its 32-bit ones).
#include "compositor/protocols/surface/color_management_surface_v1.hpp"

#include "color-management-v1-protocol.h"
#include "compositor/protocols/surface/color_management_names.hpp"

namespace kiln::compositor {

SurfaceColours::SurfaceColours(std::function<void(wlr_surface*)> changed)
    : colours_({}, [this](wlr_surface* surface) { return objects_.find(surface) != nullptr; },
               [changed = std::move(changed)](wlr_surface* surface, const renderer::SurfaceColour&) {
                   if (changed)
                       changed(surface);
               }),
      objects_({&wp_color_management_surface_v1_interface, requests(), WP_COLOR_MANAGER_V1_ERROR_SURFACE_EXISTS})
{
}

void SurfaceColours::get(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface)
{
    if (Object* object = objects_.create(client, manager, id, surface))
        object->owner = this;
}

void SurfaceColours::set_image_description(wl_client*, wl_resource* resource, wl_resource* description,
                                           uint32_t intent) noexcept
{
    Object* object = PerSurfaceObjects<Object>::from(resource);
    if (!object->surface) {
        wl_resource_post_error(resource, WP_COLOR_MANAGEMENT_SURFACE_V1_ERROR_INERT, "the wl_surface is gone");
        return;
    }
    std::shared_ptr<const DescriptionRecord> record = ready_record(description);
    if (!record) {
        wl_resource_post_error(resource, WP_COLOR_MANAGEMENT_SURFACE_V1_ERROR_IMAGE_DESCRIPTION,
                               "wp_image_description_v1@%u is not ready", wl_resource_get_id(description));
        return;
    }
    const auto named = color_management::value_of(color_management::intents, intent);
    if (!named) {
        wl_resource_post_error(resource, WP_COLOR_MANAGEMENT_SURFACE_V1_ERROR_RENDER_INTENT,
                               "render intent %u is not one kiln advertised", intent);
        return;
    }
    // Copy semantics: the description lives on with the surface whatever the client does with its object.
    object->owner->set_pending(object->surface, {record->description, *named});
}

void SurfaceColours::unset_image_description(wl_client*, wl_resource* resource) noexcept
{
    Object* object = PerSurfaceObjects<Object>::from(resource);
    if (!object->surface) {
        wl_resource_post_error(resource, WP_COLOR_MANAGEMENT_SURFACE_V1_ERROR_INERT, "the wl_surface is gone");
        return;
    }
    object->owner->set_pending(object->surface, {});
}

const void* SurfaceColours::requests()
{
    static const struct wp_color_management_surface_v1_interface table = {
        .destroy = destroy_resource,
        .set_image_description = &SurfaceColours::set_image_description,
        .unset_image_description = &SurfaceColours::unset_image_description,
    };
    return &table;
}

renderer::SurfaceColour SurfaceColours::colour(wlr_surface* surface) const
{
    return colours_.current(surface);
}

size_t SurfaceColours::count(const std::function<bool(const renderer::SurfaceColour&)>& test) const
{
    return colours_.count(test);
}

}  // namespace kiln::compositor
