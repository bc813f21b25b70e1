// SurfaceCommitHook: calls a function just before libwayland dispatches each wl_surface.commit, while the commit's
// state is still pending: the moment a protocol can hold the commit back (wlr_surface_lock_pending) before wlroots
// applies it. wlroots 0.15 has no such hook; kiln's request table (RequestHooks) sees every request first.
#pragma once

#include "compositor/protocol_kit/request_hooks.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <utility>

namespace kiln::compositor {

class SurfaceCommitHook {
public:
    SurfaceCommitHook(RequestHooks& hooks, HookOrder order, std::function<void(wlr_surface*)> before_commit)
        : before_commit_(std::move(before_commit)),
          hook_(hooks.add(wl_surface_interface, "commit", order, [this](const wl_protocol_logger_message& message) {
              if (wlr_surface* surface = wlr_surface_from_resource(message.resource))
                  before_commit_(surface);
          }))
    {
    }
    SurfaceCommitHook(const SurfaceCommitHook&) = delete;
    SurfaceCommitHook& operator=(const SurfaceCommitHook&) = delete;

private:
    std::function<void(wlr_surface*)> before_commit_;
    RequestTable::Hook hook_;
};

}  // namespace kiln::compositor
