// SignalHandlers: SIGTERM and SIGINT end kiln, SIGHUP reads kiln.ini again, each through the event loop (the signals
// are blocked in every thread, so they arrive as events); the handlers go when this does.
#pragma once

#include "compositor/wlr.hpp"

#include <functional>

namespace kiln::compositor {

class SignalHandlers {
public:
    SignalHandlers(wl_event_loop* loop, std::function<void()> terminate, std::function<void()> reload);
    ~SignalHandlers();
    SignalHandlers(const SignalHandlers&) = delete;
    SignalHandlers& operator=(const SignalHandlers&) = delete;

private:
    std::function<void()> terminate_;
    std::function<void()> reload_;
    wl_event_source* sigterm_ = nullptr;
    wl_event_source* sigint_ = nullptr;
    wl_event_source* sighup_ = nullptr;
};

}  // namespace kiln::compositor
