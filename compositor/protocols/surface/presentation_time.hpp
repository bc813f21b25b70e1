// PresentationTime: wp_presentation, kiln's own rather than wlroots 0.15's, whose per-surface feedback ignores
// cached (held) commits. Each feedback request goes to CommitFeedback (output/sync/commit_feedback.hpp), which keeps
// it with the commit it was asked with; the output takes it from there when a frame draws that commit's state.
#pragma once

#include "compositor/output/sync/commit_feedback.hpp"
#include "compositor/protocol_kit/per_surface_object.hpp"
#include "compositor/wlr.hpp"

#include <ctime>

namespace kiln::compositor {

class PresentationTime {
public:
    PresentationTime(wl_display* display, clockid_t clock, CommitGate& gate);
    PresentationTime(const PresentationTime&) = delete;
    PresentationTime& operator=(const PresentationTime&) = delete;

    bool ok() const { return global_.ok(); }
    CommitFeedback& feedback() { return feedback_; }

    // wp_presentation.feedback: one feedback object, kept with the surface's next commit.
    static void feedback_request(wl_client* client, wl_resource* resource, wl_resource* surface,
                                 uint32_t id) noexcept;

private:

    clockid_t clock_;
    CommitFeedback feedback_;
    ManagerGlobal global_;
};

}  // namespace kiln::compositor
