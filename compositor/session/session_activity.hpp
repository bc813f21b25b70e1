// SessionActivity: follows kiln's seat session (libseat) as its VT is switched away and back.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>

namespace kiln::compositor {

class SessionActivity {
public:
    explicit SessionActivity(wlr_session* session);
    SessionActivity(const SessionActivity&) = delete;
    SessionActivity& operator=(const SessionActivity&) = delete;

    // False while another VT is in front: kiln holds neither DRM master nor its input devices, and every output
    // commit fails until the session comes back.
    bool active() const { return session_ && session_->active; }
    uint64_t deactivations() const { return deactivations_; }
    uint64_t activations() const { return activations_; }

private:
    wlr_session* session_;
    uint64_t deactivations_ = 0;
    uint64_t activations_ = 0;

    wl::Listener active_;
    wl::Listener destroy_;
};

}  // namespace kiln::compositor
