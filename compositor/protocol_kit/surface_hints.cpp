// SurfaceHints: the objects' requests on top of PerSurfaceObjects, the values in a CommittedValues.
#include "compositor/protocol_kit/surface_hints.hpp"

namespace kiln::compositor {

SurfaceHints::SurfaceHints(PerSurfaceInterface kind, uint32_t initial,
                           std::function<void(wlr_surface*, uint32_t)> changed)
    : initial_(initial),
      values_(initial, [this](wlr_surface* surface) { return objects_.find(surface) != nullptr; },
              changed ? CommittedValues<uint32_t>::Changed(std::move(changed)) : nullptr),
      objects_(kind)
{
}

void SurfaceHints::get(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface) noexcept
{
    auto* self = static_cast<SurfaceHints*>(wl_resource_get_user_data(manager));
    if (Object* object = self->objects_.create(client, manager, id, surface)) {
        object->owner = self;
        self->values_.track(object->surface);
    }
}

bool SurfaceHints::set(wl_resource* resource, uint32_t value)
{
    Object* object = PerSurfaceObjects<Object>::from(resource);
    if (!object->surface)
        return false;
    object->owner->set_pending(object->surface, value);
    return true;
}

uint32_t SurfaceHints::value(wlr_surface* surface) const
{
    return values_.current(surface);
}

bool SurfaceHints::pending(wl_resource* resource, uint32_t& value)
{
    Object* object = PerSurfaceObjects<Object>::from(resource);
    if (!object->surface)
        return false;
    value = object->owner->pending(object->surface);
    return true;
}

uint32_t SurfaceHints::pending(wlr_surface* surface) const
{
    return values_.pending(surface);
}

wl_resource* SurfaceHints::object(wlr_surface* surface) const
{
    const Object* object = objects_.find(surface);
    return object ? object->resource : nullptr;
}

uint64_t SurfaceHints::count(uint32_t value) const
{
    return values_.count([value](uint32_t current) { return current == value; });
}

}  // namespace kiln::compositor
