// The signal handlers: event-loop sources for SIGTERM, SIGINT and SIGHUP.
#include "compositor/session/signal_handlers.hpp"

#include <csignal>

namespace kiln::compositor {

SignalHandlers::SignalHandlers(wl_event_loop* loop, std::function<void()> terminate, std::function<void()> reload)
    : terminate_(std::move(terminate)), reload_(std::move(reload))
{
    auto on_terminate = [](int, void* data) noexcept -> int {
        static_cast<SignalHandlers*>(data)->terminate_();
        return 0;
    };
    sigterm_ = wl_event_loop_add_signal(loop, SIGTERM, on_terminate, this);
    sigint_ = wl_event_loop_add_signal(loop, SIGINT, on_terminate, this);
    sighup_ = wl_event_loop_add_signal(
        loop, SIGHUP,
        [](int, void* data) noexcept -> int {
            static_cast<SignalHandlers*>(data)->reload_();
            return 0;
        },
        this);
}

SignalHandlers::~SignalHandlers()
{
    for (wl_event_source* source : {sigterm_, sigint_, sighup_})
        if (source)
            wl_event_source_remove(source);
}

}  // namespace kiln::compositor
