// SessionActivity: counts and logs the session going away and coming back.
#include "compositor/session/session_activity.hpp"

#include <cstdio>

namespace kiln::compositor {

SessionActivity::SessionActivity(wlr_session* session) : session_(session)
{
    // Connected after the DRM and libinput backends' own listeners, so this hears of the change once they acted.
    active_.connect(&session_->events.active, [this](void*) {
        if (!session_->active) {
            ++deactivations_;
            std::fprintf(stderr, "kiln: session paused (switched to another VT): no DRM master, no input devices\n");
            return;
        }
        ++activations_;
        std::fprintf(stderr, "kiln: session active again: DRM master and input devices are back\n");
    });
    destroy_.connect(&session_->events.destroy, [this](void*) {
        active_.disconnect();
        destroy_.disconnect();
        session_ = nullptr;
    });
}

}  // namespace kiln::compositor
