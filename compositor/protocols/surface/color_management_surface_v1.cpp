// SurfaceColours: the surface object's requests (inert, image_description and render_intent errors) and the
// per-surface entries with their commit and destroy listeners, as SurfaceHints keeps a 32-bit value.
#include "compositor/protocols/surface/color_management_surface_v1.hpp"

#include "color-management-v1-protocol.h"
#include "compositor/protocols/surface/color_management_names.hpp"

namespace kiln::compositor {

struct SurfaceColours::Entry {
    SurfaceColours* owner = nullptr;
    wlr_surface* surface = nullptr;
    renderer::SurfaceColour pending;
    renderer::SurfaceColour current;
    bool dirty = false;
    wl_listener commit{};
    wl_listener destroy{};
};


SurfaceColours::SurfaceColours(std::function<void(wlr_surface*)> changed)
    : changed_(std::move(changed)),
      objects_({&wp_color_management_surface_v1_interface, requests(),
                WP_COLOR_MANAGER_V1_ERROR_SURFACE_EXISTS})
{
}

SurfaceColours::~SurfaceColours()
{
    while (!entries_.empty())
        remove(entries_.begin()->first);
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
    auto it = entries_.find(surface);
    return it == entries_.end() ? renderer::SurfaceColour{} : it->second->current;
}

size_t SurfaceColours::count(const std::function<bool(const renderer::SurfaceColour&)>& test) const
{
    size_t n = 0;
    for (const auto& [surface, entry] : entries_)
        n += test(entry->current) ? 1 : 0;
    return n;
}

// The entry stays after its object goes until the unset is committed, so the committed description holds till then.
SurfaceColours::Entry& SurfaceColours::entry(wlr_surface* surface)
{
    auto [it, inserted] = entries_.try_emplace(surface);
    if (!inserted)
        return *it->second;
    auto entry = std::make_unique<Entry>();
    entry->owner = this;
    entry->surface = surface;
    entry->commit.notify = [](wl_listener* listener, void*) noexcept {
        Entry* e = wl_container_of(listener, e, commit);
        if (!e->dirty)
            return;
        e->dirty = false;
        const bool changed = !(e->current == e->pending);
        e->current = e->pending;
        SurfaceColours* owner = e->owner;
        wlr_surface* surface = e->surface;
        if (!owner->objects_.find(surface) && !e->current.description)
            owner->remove(surface);  // nothing left to remember
        if (changed && owner->changed_)
            owner->changed_(surface);
    };
    wl_signal_add(&surface->events.commit, &entry->commit);
    entry->destroy.notify = [](wl_listener* listener, void*) noexcept {
        Entry* e = wl_container_of(listener, e, destroy);
        e->owner->remove(e->surface);
    };
    wl_signal_add(&surface->events.destroy, &entry->destroy);
    it->second = std::move(entry);
    return *it->second;
}

void SurfaceColours::set_pending(wlr_surface* surface, renderer::SurfaceColour colour)
{
    Entry& e = entry(surface);
    e.pending = std::move(colour);
    e.dirty = true;
}

void SurfaceColours::remove(wlr_surface* surface)
{
    auto it = entries_.find(surface);
    if (it == entries_.end())
        return;
    wl_list_remove(&it->second->commit.link);
    wl_list_remove(&it->second->destroy.link);
    entries_.erase(it);
}

}  // namespace kiln::compositor
