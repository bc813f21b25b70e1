// SurfaceHints: the per-surface entries, their commit and destroy listeners.
#include "compositor/protocol_kit/surface_hints.hpp"

namespace kiln::compositor {

struct SurfaceHints::Entry {
    SurfaceHints* owner = nullptr;
    wlr_surface* surface = nullptr;
    uint32_t pending = 0;
    uint32_t current = 0;
    bool dirty = false;
    wl_listener commit{};
    wl_listener destroy{};
};

SurfaceHints::SurfaceHints(PerSurfaceInterface kind, uint32_t initial,
                           std::function<void(wlr_surface*, uint32_t)> changed)
    : initial_(initial), changed_(std::move(changed)), objects_(kind)
{
}

SurfaceHints::~SurfaceHints()
{
    while (!entries_.empty())
        remove(entries_.begin()->first);
}

void SurfaceHints::get(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface) noexcept
{
    auto* self = static_cast<SurfaceHints*>(wl_resource_get_user_data(manager));
    if (Object* object = self->objects_.create(client, manager, id, surface)) {
        object->owner = self;
        self->entry(object->surface);
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

// The entry stays after its object goes until the revert is committed, so a new object finds it.
SurfaceHints::Entry& SurfaceHints::entry(wlr_surface* surface)
{
    auto [it, inserted] = entries_.try_emplace(surface);
    if (!inserted)
        return *it->second;
    auto entry = std::make_unique<Entry>();
    entry->owner = this;
    entry->surface = surface;
    entry->pending = entry->current = initial_;
    entry->commit.notify = [](wl_listener* listener, void*) noexcept {
        Entry* e = wl_container_of(listener, e, commit);
        if (!e->dirty)
            return;
        e->dirty = false;
        const bool changed = e->current != e->pending;
        e->current = e->pending;
        SurfaceHints* owner = e->owner;
        wlr_surface* surface = e->surface;
        const uint32_t value = e->current;
        if (!owner->objects_.find(surface) && value == owner->initial_)
            owner->remove(surface);  // nothing left to remember
        if (changed && owner->changed_)
            owner->changed_(surface, value);
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

void SurfaceHints::set_pending(wlr_surface* surface, uint32_t value)
{
    Entry& e = entry(surface);
    e.pending = value;
    e.dirty = true;
}

uint32_t SurfaceHints::value(wlr_surface* surface) const
{
    auto it = entries_.find(surface);
    return it == entries_.end() ? initial_ : it->second->current;
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
    auto it = entries_.find(surface);
    return it == entries_.end() ? initial_ : it->second->pending;
}

wl_resource* SurfaceHints::object(wlr_surface* surface) const
{
    const Object* object = objects_.find(surface);
    return object ? object->resource : nullptr;
}

uint64_t SurfaceHints::count(uint32_t value) const
{
    uint64_t n = 0;
    for (const auto& [surface, entry] : entries_)
        n += entry->current == value ? 1 : 0;
    return n;
}

void SurfaceHints::remove(wlr_surface* surface)
{
    auto it = entries_.find(surface);
    if (it == entries_.end())
        return;
    Entry& entry = *it->second;
    wl_list_remove(&entry.commit.link);
    wl_list_remove(&entry.destroy.link);
    entries_.erase(it);
}

}  // namespace kiln::compositor
