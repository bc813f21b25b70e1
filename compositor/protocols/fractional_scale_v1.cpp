// wp_fractional_scale_manager_v1 and wp_fractional_scale_v1: one object a surface, its preferred scale kept current.
#include "compositor/protocols/fractional_scale_v1.hpp"

#include "compositor/protocols/surface_attachment.hpp"

#include "fractional-scale-v1-protocol.h"

#include <algorithm>
#include <cmath>
#include <new>

namespace kiln::compositor {

// Lives as long as its resource; its surface may go first (the object then stays, inert, as the protocol says).
struct FractionalScaleV1::Object {
    FractionalScaleV1* owner = nullptr;
    wl_resource* resource = nullptr;
    wlr_surface* surface = nullptr;
    SurfaceAttachment attachment;  // on the surface: how a second object for it is found
    uint32_t sent = 0;  // 0: nothing sent yet
    wl::Listener commit;

    void forget_surface()
    {
        if (!surface)
            return;
        attachment.detach();
        commit.disconnect();
        surface = nullptr;
    }
};

namespace {

void destroy_request(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

const struct wp_fractional_scale_v1_interface object_requests = {destroy_request};

}  // namespace

uint32_t FractionalScaleV1::to_120ths(float scale)
{
    return static_cast<uint32_t>(std::max(1L, std::lround(static_cast<double>(scale) * 120.0)));
}

FractionalScaleV1::FractionalScaleV1(wl_display* display, wlr_output_layout* layout)
    : global_(wl_global_create(display, &wp_fractional_scale_manager_v1_interface, 1, this, &FractionalScaleV1::bind)),
      layout_(layout)
{
    // An output added, removed or given another scale changes what surfaces on it should be told.
    layout_change_.connect(&layout->events.change, [this](void*) {
        output_frames_.clear();
        wlr_output_layout_output* placed = nullptr;
        wl_list_for_each(placed, &layout_->outputs, link)
            output_frames_.emplace_back(&placed->output->events.frame, [this](void*) { update_all(); });
        update_all();
    });
}

void FractionalScaleV1::update_all()
{
    for (Object* object : objects_)
        update(*object);
}

FractionalScaleV1::~FractionalScaleV1()
{
    // Objects outlive the global only while their clients do, and the display destroys those first; any left are
    // made inert so they never reach back into this.
    for (Object* object : objects_) {
        object->forget_surface();
        object->owner = nullptr;
    }
    wl_global_destroy(global_);
}

void FractionalScaleV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    static const struct wp_fractional_scale_manager_v1_interface requests = {
        .destroy = destroy_request,
        .get_fractional_scale = &FractionalScaleV1::get_fractional_scale,
    };
    wl_resource* resource = wl_resource_create(client, &wp_fractional_scale_manager_v1_interface,
                                               static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &requests, data, nullptr);
}

void FractionalScaleV1::get_fractional_scale(wl_client* client, wl_resource* manager, uint32_t id,
                                             wl_resource* surface_resource) noexcept
{
    auto* self = static_cast<FractionalScaleV1*>(wl_resource_get_user_data(manager));
    wlr_surface* surface = wlr_surface_from_resource(surface_resource);
    if (SurfaceAttachment::find(surface, self)) {
        wl_resource_post_error(manager, WP_FRACTIONAL_SCALE_MANAGER_V1_ERROR_FRACTIONAL_SCALE_EXISTS,
                               "wl_surface@%u already has a wp_fractional_scale_v1", wl_resource_get_id(surface_resource));
        return;
    }
    wl_resource* resource = wl_resource_create(client, &wp_fractional_scale_v1_interface,
                                               wl_resource_get_version(manager), id);
    auto* object = new (std::nothrow) Object;
    if (!resource || !object) {
        delete object;
        if (resource)
            wl_resource_destroy(resource);
        wl_client_post_no_memory(client);
        return;
    }
    object->owner = self;
    object->resource = resource;
    object->surface = surface;
    object->attachment.attach(surface, self, object,
                              [](void* gone) noexcept { static_cast<Object*>(gone)->forget_surface(); });
    object->commit.connect(&surface->events.commit, [self, object](void*) { self->update(*object); });
    self->objects_.push_back(object);
    wl_resource_set_implementation(resource, &object_requests, object, [](wl_resource* gone) noexcept {
        auto* object = static_cast<Object*>(wl_resource_get_user_data(gone));
        object->forget_surface();
        if (object->owner)
            object->owner->objects_.remove(object);
        delete object;
    });
    self->update(*object);
}

uint32_t FractionalScaleV1::preferred(wlr_surface* surface) const
{
    float highest = 0;
    wlr_surface_output* entered = nullptr;
    wl_list_for_each(entered, &surface->current_outputs, link)
        highest = std::max(highest, entered->output->scale);
    if (highest == 0) {
        // Not on any output yet: the highest any output has, so its first frame is drawn sharp wherever it goes.
        wlr_output_layout_output* placed = nullptr;
        wl_list_for_each(placed, &layout_->outputs, link)
            highest = std::max(highest, placed->output->scale);
    }
    return to_120ths(highest > 0 ? highest : 1.0f);
}

void FractionalScaleV1::update(Object& object)
{
    if (!object.surface)
        return;
    const uint32_t scale = preferred(object.surface);
    if (scale == object.sent)
        return;
    object.sent = scale;
    wp_fractional_scale_v1_send_preferred_scale(object.resource, scale);
}

}  // namespace kiln::compositor
