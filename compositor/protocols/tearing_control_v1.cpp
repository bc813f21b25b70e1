// wp_tearing_control_manager_v1 and wp_tearing_control_v1: one object per surface, its double-buffered hint.
#include "compositor/protocols/tearing_control_v1.hpp"

#include "tearing-control-v1-protocol.h"

namespace kiln::compositor {
namespace {

void destroy_object(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

void set_presentation_hint(wl_client*, wl_resource* object, uint32_t hint) noexcept
{
    if (!wp_tearing_control_v1_presentation_hint_is_valid(hint, wl_resource_get_version(object))) {
        wl_resource_post_error(object, WL_DISPLAY_ERROR_INVALID_METHOD, "%u is not a presentation hint", hint);
        return;
    }
    if (SurfaceHints* hints = SurfaceHints::from(object))  // null: get_tearing_control failed
        hints->set(object, hint);
}

const struct wp_tearing_control_v1_interface object_requests = {
    .set_presentation_hint = set_presentation_hint,
    .destroy = destroy_object,
};

void get_tearing_control(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface_resource) noexcept
{
    auto* hints = static_cast<SurfaceHints*>(wl_resource_get_user_data(manager));
    wlr_surface* surface = wlr_surface_from_resource(surface_resource);
    wl_resource* object =
        wl_resource_create(client, &wp_tearing_control_v1_interface, wl_resource_get_version(manager), id);
    if (!object) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(object, &object_requests, nullptr, [](wl_resource* object) noexcept {
        if (SurfaceHints* hints = SurfaceHints::from(object))
            hints->detach(object);
    });
    if (!hints->attach(surface, object))
        wl_resource_post_error(manager, WP_TEARING_CONTROL_MANAGER_V1_ERROR_TEARING_CONTROL_EXISTS,
                               "the surface has a wp_tearing_control_v1 already");
}

const struct wp_tearing_control_manager_v1_interface manager_requests = {
    .destroy = destroy_object,
    .get_tearing_control = get_tearing_control,
};

}  // namespace

TearingControlV1::TearingControlV1(wl_display* display)
    : hints_(WP_TEARING_CONTROL_V1_PRESENTATION_HINT_VSYNC),
      global_(wl_global_create(display, &wp_tearing_control_manager_v1_interface, 1, &hints_, bind))
{
}

TearingControlV1::~TearingControlV1()
{
    if (global_)
        wl_global_destroy(global_);
}

void TearingControlV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource =
        wl_resource_create(client, &wp_tearing_control_manager_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &manager_requests, data, nullptr);
}

}  // namespace kiln::compositor
