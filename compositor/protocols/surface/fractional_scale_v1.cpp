// wp_fractional_scale_manager_v1 and wp_fractional_scale_v1: one object a surface, its preferred scale kept current.
#include "compositor/protocols/surface/fractional_scale_v1.hpp"

#include "fractional-scale-v1-protocol.h"

#include <algorithm>
#include <cmath>

namespace kiln::compositor {

namespace {

const struct wp_fractional_scale_v1_interface object_requests = {destroy_resource};

const struct wp_fractional_scale_manager_v1_interface manager_requests = {
    .destroy = destroy_resource,
    .get_fractional_scale = &FractionalScaleV1::get_fractional_scale,
};

}  // namespace

uint32_t FractionalScaleV1::to_120ths(float scale)
{
    return static_cast<uint32_t>(std::max(1L, std::lround(static_cast<double>(scale) * 120.0)));
}

FractionalScaleV1::FractionalScaleV1(wl_display* display, wlr_output_layout* layout)
    : layout_(layout),
      objects_({&wp_fractional_scale_v1_interface, &object_requests,
                WP_FRACTIONAL_SCALE_MANAGER_V1_ERROR_FRACTIONAL_SCALE_EXISTS}),
      global_(display, wp_fractional_scale_manager_v1_interface, 1, &manager_requests, this)
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
    objects_.for_each([this](Object& object) { update(object); });
}

void FractionalScaleV1::get_fractional_scale(wl_client* client, wl_resource* manager, uint32_t id,
                                             wl_resource* surface) noexcept
{
    auto* self = static_cast<FractionalScaleV1*>(wl_resource_get_user_data(manager));
    Object* object = self->objects_.create(client, manager, id, surface);
    if (!object)
        return;
    object->commit.connect(&object->surface->events.commit, [self, object](void*) { self->update(*object); });
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
