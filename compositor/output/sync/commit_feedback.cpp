// CommitFeedback: per surface, feedback asked for the next commit, feedback of held commits by seq, and the applied
// state's feedback until a frame takes it.
#include "compositor/output/sync/commit_feedback.hpp"

namespace kiln::compositor {

CommitFeedback::CommitFeedback(CommitGate& gate)
    : source_(gate, [this](wlr_surface* surface) { before_commit(surface); })
{
}

void CommitFeedback::requested(wlr_surface* surface, std::unique_ptr<PresentationFeedback> feedback)
{
    auto& entry = surfaces_[surface];
    if (!entry) {
        entry = std::make_unique<Surface>();
        Surface* raw = entry.get();
        raw->applied.connect(&surface->events.commit,
                             [this, raw, surface](void*) { applied(*raw, surface->current.seq); });
        // Feedback of a surface that goes was never presented: discarded with it.
        raw->destroy.connect(&surface->events.destroy, [this, surface](void*) { surfaces_.erase(surface); });
    }
    entry->pending.push_back(std::move(feedback));
}

void CommitFeedback::before_commit(wlr_surface* surface)
{
    auto it = surfaces_.find(surface);
    if (it == surfaces_.end() || it->second->pending.empty())
        return;
    // The commit about to run is surface->pending.seq, whether wlroots applies it now or caches it.
    it->second->committed.emplace_back(surface->pending.seq, std::move(it->second->pending));
    it->second->pending.clear();
}

void CommitFeedback::applied(Surface& entry, uint32_t current)
{
    // wlroots applies cached states one at a time, each with its commit event: the state before this one is
    // replaced, and its feedback, if no frame took it, was never shown.
    entry.current.clear();
    while (!entry.committed.empty() && entry.committed.front().first <= current) {
        entry.current = std::move(entry.committed.front().second);  // replaces (discards) any from an earlier seq
        entry.committed.pop_front();
    }
}

CommitFeedback::Feedbacks CommitFeedback::sampled(wlr_surface* surface)
{
    auto it = surfaces_.find(surface);
    if (it == surfaces_.end())
        return {};
    return std::exchange(it->second->current, {});
}

size_t CommitFeedback::held(wlr_surface* surface) const
{
    auto it = surfaces_.find(surface);
    if (it == surfaces_.end())
        return 0;
    size_t n = 0;
    for (const auto& [seq, feedbacks] : it->second->committed)
        n += feedbacks.size();
    return n;
}

}  // namespace kiln::compositor
