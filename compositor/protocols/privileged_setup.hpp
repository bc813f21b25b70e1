// PrivilegedSetup: the privileged globals made before the desktop (wlroots' screencopy, export-dmabuf and
// gamma-control, security-context, drm-lease) and the PrivilegedGlobals filter that hides them, made in
// Server::start()'s order into Server's members (their declaration order in server.hpp is the teardown order). It
// includes the rooms' headers: Server, which owns them, needs their whole types.
#pragma once

#include "compositor/protocols/drm_lease_v1.hpp"
#include "compositor/protocols/privileged_globals.hpp"
#include "compositor/protocols/security_context_v1.hpp"
#include "compositor/session/options.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <memory>
#include <string>
#include <sys/types.h>

namespace kiln::compositor {

// References to Server's members, which own the rooms.
struct PrivilegedSetup {
    std::unique_ptr<PrivilegedGlobals>& privileged;
    std::unique_ptr<SecurityContextV1>& security_context;
    std::unique_ptr<DrmLeaseV1>& drm_lease;

    // The globals, each guarded as `options` say (sandboxes never see them; --restrict hides them from clients
    // `started` does not know); false (with `error`) when wlroots cannot make one. The rooms made later guard their
    // own privileged globals through `privileged`.
    bool make(wl_display* display, wlr_backend* backend, const Options& options, std::function<bool(pid_t)> started,
              std::string& error);
};

}  // namespace kiln::compositor
