// CommitFeedback: each content update's wp_presentation feedback, kept with that update while the commit gate holds
// it. wlroots 0.15's wlr_presentation keeps one pending feedback per surface, not one per cached state: feedback
// asked for while an earlier commit was held joined that commit's (several FIFO frames reported on one refresh), and
// a held commit applied right after another (Mesa's empty wait_barrier commit) took the next frame's feedback and
// discarded it unshown. Here a feedback belongs to the commit it was asked with, becomes the surface's current one
// when that commit is applied, and is discarded only when a later applied commit replaces it before a frame took it.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/output/sync/commit_gate.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace kiln::compositor {

// One wp_presentation_feedback: told when the frame holding its update is presented; destroyed untold, it was
// discarded.
class PresentationFeedback {
public:
    virtual ~PresentationFeedback() = default;
    virtual void presented(const wlr_presentation_event& event) = 0;
};

class CommitFeedback {
public:
    using Feedbacks = std::vector<std::unique_ptr<PresentationFeedback>>;

    explicit CommitFeedback(CommitGate& gate);
    CommitFeedback(const CommitFeedback&) = delete;
    CommitFeedback& operator=(const CommitFeedback&) = delete;

    // Feedback asked for the surface's next commit.
    void requested(wlr_surface* surface, std::unique_ptr<PresentationFeedback> feedback);
    // The feedback of the surface's applied state, taken by the frame that draws it (nothing if already taken).
    Feedbacks sampled(wlr_surface* surface);
    // Feedback waiting for its commit to be applied (for tests).
    size_t held(wlr_surface* surface) const;

private:
    struct Surface {
        Feedbacks pending;                                  // asked for the commit to come
        std::deque<std::pair<uint32_t, Feedbacks>> committed;  // by commit seq, oldest first: not applied yet
        Feedbacks current;                                  // the applied state's, until a frame takes it
        wl::Listener applied;
        wl::Listener destroy;
    };

    void before_commit(wlr_surface* surface);
    void applied(Surface& entry, uint32_t current);

    std::map<wlr_surface*, std::unique_ptr<Surface>> surfaces_;
    CommitGate::Source source_;
};

}  // namespace kiln::compositor
