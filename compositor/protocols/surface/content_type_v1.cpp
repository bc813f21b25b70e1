// wp_content_type_manager_v1 and wp_content_type_v1: one object per surface (SurfaceHints), its double-buffered type.
#include "compositor/protocols/surface/content_type_v1.hpp"

#include "content-type-v1-protocol.h"

namespace kiln::compositor {
namespace {

void set_content_type(wl_client*, wl_resource* object, uint32_t type) noexcept
{
    if (!wp_content_type_v1_type_is_valid(type, wl_resource_get_version(object))) {
        wl_resource_post_error(object, WL_DISPLAY_ERROR_INVALID_METHOD, "%u is not a content type", type);
        return;
    }
    SurfaceHints::set(object, type);  // an inert object's type is dropped
}

const struct wp_content_type_v1_interface object_requests = {
    .destroy = destroy_resource,
    .set_content_type = set_content_type,
};

const struct wp_content_type_manager_v1_interface manager_requests = {
    .destroy = destroy_resource,
    .get_surface_content_type = SurfaceHints::get,
};

}  // namespace

ContentTypeV1::ContentTypeV1(wl_display* display)
    : hints_({&wp_content_type_v1_interface, &object_requests, WP_CONTENT_TYPE_MANAGER_V1_ERROR_ALREADY_CONSTRUCTED},
             WP_CONTENT_TYPE_V1_TYPE_NONE),
      global_(display, wp_content_type_manager_v1_interface, 1, &manager_requests, &hints_)
{
}

}  // namespace kiln::compositor
