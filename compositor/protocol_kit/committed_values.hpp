// CommittedValues<Value>: a per-surface extension's double-buffered state — a value per wl_surface set as pending by
// the protocol's requests and made current by the surface's next commit — with the listeners that does and the
// forgetting of surfaces that go. SurfaceHints (a 32-bit value) and SurfaceColours (an image description and render
// intent) keep theirs in one.
#pragma once

#include "compositor/wlr.hpp"

#include <functional>
#include <memory>
#include <unordered_map>
#include <utility>

namespace kiln::compositor {

template <class Value>
class CommittedValues {
public:
    // Whether a surface's protocol object still exists (it may set the value again).
    using Held = std::function<bool(wlr_surface*)>;
    // A commit changed the surface's current value.
    using Changed = std::function<void(wlr_surface*, const Value&)>;

    // `initial`: the value of a surface nobody set. A surface whose committed value is `initial` again and that
    // `held` says has no object any more is forgotten.
    CommittedValues(Value initial, Held held, Changed changed)
        : initial_(std::move(initial)), held_(std::move(held)), changed_(std::move(changed))
    {
    }
    ~CommittedValues()
    {
        while (!entries_.empty())
            remove(entries_.begin()->first);
    }
    CommittedValues(const CommittedValues&) = delete;
    CommittedValues& operator=(const CommittedValues&) = delete;

    const Value& initial() const { return initial_; }

    // `value` is what `surface` commits next.
    void set_pending(wlr_surface* surface, Value value)
    {
        Entry& e = entry(surface);
        e.pending = std::move(value);
        e.dirty = true;
    }
    // Listens to `surface`'s commits from now on, before a value is set (so that its commit listener comes before
    // ones added later).
    void track(wlr_surface* surface) { entry(surface); }
    // The value `surface` shows now.
    const Value& current(wlr_surface* surface) const
    {
        auto it = entries_.find(surface);
        return it == entries_.end() ? initial_ : it->second->current;
    }
    // The value `surface` is to commit next (its current one when nothing was set since).
    const Value& pending(wlr_surface* surface) const
    {
        auto it = entries_.find(surface);
        return it == entries_.end() ? initial_ : it->second->pending;
    }
    // How many surfaces have a current value that `test` holds for.
    template <class Test>
    size_t count(Test&& test) const
    {
        size_t n = 0;
        for (const auto& [surface, e] : entries_)
            n += test(e->current) ? 1 : 0;
        return n;
    }

private:
    struct Entry {
        CommittedValues* owner = nullptr;
        wlr_surface* surface = nullptr;
        Value pending;
        Value current;
        bool dirty = false;
        wl_listener commit{};
        wl_listener destroy{};
    };

    // The entry stays after its object goes until the reverting value is committed, so a new object finds it.
    Entry& entry(wlr_surface* surface)
    {
        auto [it, inserted] = entries_.try_emplace(surface);
        if (!inserted)
            return *it->second;
        auto e = std::make_unique<Entry>(Entry{this, surface, initial_, initial_});
        e->commit.notify = [](wl_listener* listener, void*) noexcept {
            Entry* entry = wl_container_of(listener, entry, commit);
            if (entry->dirty)
                entry->owner->apply(*entry);
        };
        wl_signal_add(&surface->events.commit, &e->commit);
        e->destroy.notify = [](wl_listener* listener, void*) noexcept {
            Entry* entry = wl_container_of(listener, entry, destroy);
            entry->owner->remove(entry->surface);
        };
        wl_signal_add(&surface->events.destroy, &e->destroy);
        it->second = std::move(e);
        return *it->second;
    }

    void apply(Entry& e)
    {
        e.dirty = false;
        const bool changed = !(e.current == e.pending);
        e.current = e.pending;
        wlr_surface* surface = e.surface;
        const bool forget = e.current == initial_ && !(held_ && held_(surface));
        if (!changed || !changed_) {
            if (forget)
                remove(surface);  // nothing left to remember
            return;
        }
        // The callback may look the surface up again: it is told after the entry is settled.
        Value value = e.current;
        if (forget)
            remove(surface);
        changed_(surface, value);
    }

    void remove(wlr_surface* surface)
    {
        auto it = entries_.find(surface);
        if (it == entries_.end())
            return;
        wl_list_remove(&it->second->commit.link);
        wl_list_remove(&it->second->destroy.link);
        entries_.erase(it);
    }

    Value initial_;
    Held held_;
    Changed changed_;
    std::unordered_map<wlr_surface*, std::unique_ptr<Entry>> entries_;
};

}  // namespace kiln::compositor
