// SurfaceCommitHook: calls a function just before libwayland dispatches each wl_surface.commit, while the commit's
// state is still pending: the moment a protocol can hold the commit back (wlr_surface_lock_pending) before wlroots
// applies it. wlroots 0.15 has no such hook; a protocol logger sees every request first.
#pragma once

#include "compositor/wlr.hpp"

#include <cstring>
#include <functional>
#include <utility>

namespace kiln::compositor {

class SurfaceCommitHook {
public:
    SurfaceCommitHook(wl_display* display, std::function<void(wlr_surface*)> before_commit)
        : before_commit_(std::move(before_commit)),
          logger_(wl_display_add_protocol_logger(display, &SurfaceCommitHook::on_message, this))
    {
    }
    ~SurfaceCommitHook()
    {
        if (logger_)
            wl_protocol_logger_destroy(logger_);
    }
    SurfaceCommitHook(const SurfaceCommitHook&) = delete;
    SurfaceCommitHook& operator=(const SurfaceCommitHook&) = delete;

private:
    static void on_message(void* data, wl_protocol_logger_type type, const wl_protocol_logger_message* message) noexcept
    {
        if (type != WL_PROTOCOL_LOGGER_REQUEST || std::strcmp(message->message->name, "commit") != 0 ||
            std::strcmp(wl_resource_get_class(message->resource), wl_surface_interface.name) != 0)
            return;
        if (wlr_surface* surface = wlr_surface_from_resource(message->resource))
            static_cast<SurfaceCommitHook*>(data)->before_commit_(surface);
    }

    std::function<void(wlr_surface*)> before_commit_;
    wl_protocol_logger* logger_;
};

}  // namespace kiln::compositor
