// CommitGate: one lock per held commit, let go when its last condition is ready.
#include "compositor/output/sync/commit_gate.hpp"

#include <algorithm>

namespace kiln::compositor {

bool CommitGate::Held::any_waiting() const
{
    return std::any_of(waiting.begin(), waiting.end(), [](bool w) { return w; });
}

CommitGate::~CommitGate()
{
    hook_.reset();
    // Watches go first (fd sources, timers); the surfaces' cached states are wlroots' to free with them.
    surfaces_.clear();
}

CommitGate::Source::Source(CommitGate& gate, std::function<void(wlr_surface*)> before_commit)
    : gate_(gate), id_(gate.next_source_++)
{
    gate_.sources_.emplace(id_, std::move(before_commit));
}

CommitGate::Source::~Source()
{
    gate_.sources_.erase(id_);
}

void CommitGate::before_commit(wlr_surface* surface)
{
    for (auto& [id, source] : sources_)
        source(surface);
}

uint32_t CommitGate::hold(wlr_surface* surface, Condition condition, std::unique_ptr<Watch> watch)
{
    auto& entry = surfaces_[surface];
    if (!entry) {
        entry = std::make_unique<Surface>();
        // A surface destroyed while held takes its cached states with it: nothing to apply, the holds just go.
        entry->destroy.connect(&surface->events.destroy, [this, surface](void*) { surfaces_.erase(surface); });
    }
    const uint32_t pending = surface->pending.seq;
    if (entry->held.empty() || entry->held.back().seq != pending) {
        Held held;
        held.seq = states_.hold_pending(surface);
        held.since = std::chrono::steady_clock::now();
        entry->held.push_back(std::move(held));
    }
    Held& held = entry->held.back();
    const size_t i = index(condition);
    if (!held.waiting[i])
        ++waits_[i];
    held.waiting[i] = true;
    held.watches[i] = std::move(watch);
    return held.seq;
}

void CommitGate::ready(wlr_surface* surface, uint32_t seq, Condition condition)
{
    auto it = surfaces_.find(surface);
    if (it == surfaces_.end())
        return;
    auto& list = it->second->held;
    auto held = std::find_if(list.begin(), list.end(), [seq](const Held& h) { return h.seq == seq; });
    const size_t i = index(condition);
    if (held == list.end() || !held->waiting[i])
        return;
    held->waiting[i] = false;
    wait_ms_[i].push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - held->since).count());
    // The watch may be the caller (an fd or timer callback): it is destroyed with the hold below and must not touch
    // itself after this call returns.
    std::unique_ptr<Watch> done = std::move(held->watches[i]);
    if (held->any_waiting())
        return;
    list.erase(held);
    if (list.empty())
        surfaces_.erase(it);  // before letting go: applying runs handlers that may hold this surface again
    // Applies the commit, and any cached behind it that nothing holds.
    states_.let_go(surface, seq);
}

bool CommitGate::holds(wlr_surface* surface, uint32_t seq, Condition condition) const
{
    auto it = surfaces_.find(surface);
    if (it == surfaces_.end())
        return false;
    for (const Held& held : it->second->held)
        if (held.seq == seq)
            return held.waiting[index(condition)];
    return false;
}

size_t CommitGate::waiting(Condition condition) const
{
    size_t n = 0;
    for (const auto& [surface, entry] : surfaces_)
        for (const Held& held : entry->held)
            n += held.waiting[index(condition)] ? 1 : 0;
    return n;
}

size_t CommitGate::held_commits() const
{
    size_t n = 0;
    for (const auto& [surface, entry] : surfaces_)
        n += entry->held.size();
    return n;
}

}  // namespace kiln::compositor
