// SessionActivity: follows kiln's seat session (libseat) as its VT is switched away and back.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/stats.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>

namespace kiln::compositor {

class SessionActivity {
public:
    // `backend` is the multi backend the session's DRM and libinput backends are part of.
    SessionActivity(wl_display* display, wlr_backend* backend, wlr_session* session);
    ~SessionActivity();
    SessionActivity(const SessionActivity&) = delete;
    SessionActivity& operator=(const SessionActivity&) = delete;

    // False while another VT is in front: kiln holds neither DRM master nor its input devices, and every output
    // commit fails until the session comes back.
    bool active() const { return session_ && session_->active; }
    uint64_t deactivations() const { return deactivations_; }
    uint64_t activations() const { return activations_; }
    // Input devices opened afresh on returns (see reopen_input).
    uint64_t input_reopens() const { return input_reopens_; }
    // The session.* keys; `frames_while_inactive` from the frame statistics.
    void report(Stats& stats, uint64_t frames_while_inactive) const;

private:
    void reopen_input();

    wl_display* display_;
    wlr_backend* backend_;
    wlr_session* session_;
    wl_event_source* reopen_ = nullptr;
    uint64_t deactivations_ = 0;
    uint64_t activations_ = 0;
    uint64_t input_reopens_ = 0;

    wl::Listener active_;
    wl::Listener destroy_;
};

}  // namespace kiln::compositor
