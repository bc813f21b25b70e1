// wp_content_type_manager_v1 and wp_content_type_v1: one object per surface, its double-buffered type.
#include "compositor/protocols/content_type_v1.hpp"

#include "content-type-v1-protocol.h"

namespace kiln::compositor {
namespace {

void destroy_object(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

void set_content_type(wl_client*, wl_resource* object, uint32_t type) noexcept
{
    if (!wp_content_type_v1_type_is_valid(type, wl_resource_get_version(object))) {
        wl_resource_post_error(object, WL_DISPLAY_ERROR_INVALID_METHOD, "%u is not a content type", type);
        return;
    }
    if (SurfaceHints* hints = SurfaceHints::from(object))  // null: get_surface_content_type failed
        hints->set(object, type);
}

const struct wp_content_type_v1_interface object_requests = {
    .destroy = destroy_object,
    .set_content_type = set_content_type,
};

void get_content_type(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface_resource) noexcept
{
    auto* hints = static_cast<SurfaceHints*>(wl_resource_get_user_data(manager));
    wlr_surface* surface = wlr_surface_from_resource(surface_resource);
    wl_resource* object =
        wl_resource_create(client, &wp_content_type_v1_interface, wl_resource_get_version(manager), id);
    if (!object) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(object, &object_requests, nullptr, [](wl_resource* object) noexcept {
        if (SurfaceHints* hints = SurfaceHints::from(object))
            hints->detach(object);
    });
    if (!hints->attach(surface, object))
        wl_resource_post_error(manager, WP_CONTENT_TYPE_MANAGER_V1_ERROR_ALREADY_CONSTRUCTED,
                               "the surface has a wp_content_type_v1 already");
}

const struct wp_content_type_manager_v1_interface manager_requests = {
    .destroy = destroy_object,
    .get_surface_content_type = get_content_type,
};

}  // namespace

ContentTypeV1::ContentTypeV1(wl_display* display)
    : hints_(WP_CONTENT_TYPE_V1_TYPE_NONE),
      global_(wl_global_create(display, &wp_content_type_manager_v1_interface, 1, &hints_, bind))
{
}

ContentTypeV1::~ContentTypeV1()
{
    if (global_)
        wl_global_destroy(global_);
}

void ContentTypeV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource =
        wl_resource_create(client, &wp_content_type_manager_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &manager_requests, data, nullptr);
}

}  // namespace kiln::compositor
