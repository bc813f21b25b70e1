// SurfaceHints: the per-surface entries, their commit and destroy listeners.
#include "compositor/protocols/surface_hints.hpp"

namespace kiln::compositor {

struct SurfaceHints::Entry {
    SurfaceHints* owner = nullptr;
    wlr_surface* surface = nullptr;
    wl_resource* object = nullptr;  // null once destroyed (the entry stays until the revert is committed)
    uint32_t pending = 0;
    uint32_t current = 0;
    bool dirty = false;
    wl_listener commit{};
    wl_listener destroy{};
};

SurfaceHints::SurfaceHints(uint32_t initial, std::function<void(wlr_surface*, uint32_t)> changed)
    : initial_(initial), changed_(std::move(changed))
{
}

SurfaceHints::~SurfaceHints()
{
    while (!entries_.empty())
        remove(entries_.begin()->first);
}

bool SurfaceHints::attach(wlr_surface* surface, wl_resource* object)
{
    auto [it, inserted] = entries_.try_emplace(surface);
    if (!inserted) {
        if (it->second->object)
            return false;
    } else {
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
            if (!e->object && value == owner->initial_)
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
    }
    it->second->object = object;
    wl_resource_set_user_data(object, this);
    objects_[object] = surface;
    return true;
}

wlr_surface* SurfaceHints::surface_of(wl_resource* object) const
{
    auto it = objects_.find(object);
    return it == objects_.end() ? nullptr : it->second;
}

void SurfaceHints::set(wl_resource* object, uint32_t value)
{
    wlr_surface* surface = surface_of(object);
    auto it = surface ? entries_.find(surface) : entries_.end();
    if (it == entries_.end())
        return;
    it->second->pending = value;
    it->second->dirty = true;
}

void SurfaceHints::detach(wl_resource* object)
{
    wlr_surface* surface = surface_of(object);
    auto it = surface ? entries_.find(surface) : entries_.end();
    if (it == entries_.end() || it->second->object != object)
        return;
    Entry& entry = *it->second;
    entry.object = nullptr;
    entry.pending = initial_;
    entry.dirty = true;
    objects_.erase(object);
}

uint32_t SurfaceHints::value(wlr_surface* surface) const
{
    auto it = entries_.find(surface);
    return it == entries_.end() ? initial_ : it->second->current;
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
    if (entry.object)
        objects_.erase(entry.object);  // inert from now on
    entries_.erase(it);
}

}  // namespace kiln::compositor
