// InputInhibit: wlr-input-inhibitor (zwlr_input_inhibit_manager_v1), with which a lock screen or greeter takes all
// input: while one client holds the inhibitor only its surfaces get keyboard, pointer, touch and tablet input.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <functional>

namespace kiln::compositor {

class InputInhibit {
public:
    // `changed` runs with the client that now holds the inhibitor, or null once it let go (or disconnected).
    InputInhibit(wl_display* display, std::function<void(wl_client*)> changed);
    InputInhibit(const InputInhibit&) = delete;
    InputInhibit& operator=(const InputInhibit&) = delete;

    // The client holding the inhibitor, or null.
    wl_client* exclusive_client() const { return manager_ ? manager_->active_client : nullptr; }
    // Whether `surface` may get input now: always, unless another client holds the inhibitor.
    bool allows(wlr_surface* surface) const;
    // Privileged: hidden from unknown clients where [security] restricts it.
    const wl_global* global() const { return manager_ ? manager_->global : nullptr; }

private:
    wlr_input_inhibit_manager* manager_;  // freed with the display
    std::function<void(wl_client*)> changed_;
    wl::Listener activate_;
    wl::Listener deactivate_;
    wl::Listener destroy_;
};

}  // namespace kiln::compositor
