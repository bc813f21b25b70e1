// PrivilegedSetup: the privileged globals made before the desktop (wlroots' screencopy, export-dmabuf and
// gamma-control, security-context, drm-lease) and the PrivilegedGlobals filter that hides them, owned here (wlroots'
// three go with the display) and made in Server::start()'s order. Their declaration order below is their teardown
// order; Server destroys this group after the desktop rooms, whose privileged globals it guards.
#pragma once

#include "compositor/protocols/desktop/drm_lease_v1.hpp"
#include "compositor/protocols/security/privileged_globals.hpp"
#include "compositor/protocol_kit/request_hooks.hpp"
#include "compositor/protocols/security/security_context_v1.hpp"
#include "compositor/session/options.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <memory>
#include <string>
#include <sys/types.h>

namespace kiln::compositor {

// The rooms, owned.
struct PrivilegedSetup {
    PrivilegedSetup() = default;
    PrivilegedSetup(const PrivilegedSetup&) = delete;
    PrivilegedSetup& operator=(const PrivilegedSetup&) = delete;

    std::unique_ptr<DrmLeaseV1> drm_lease;  // revokes its leases while the backend's DRM fd is open
    std::unique_ptr<SecurityContextV1> security_context;  // after the global filter, which asks it
    std::unique_ptr<PrivilegedGlobals> privileged;

    // The globals, each guarded as `options` say (sandboxes never see them; --restrict hides them from clients
    // `started` does not know); false (with `error`) when wlroots cannot make one. The rooms made later guard their
    // own privileged globals through `privileged`, which answers binds of hidden ones through `hooks`.
    bool make(wl_display* display, wlr_backend* backend, RequestHooks& hooks, const Options& options,
              std::function<bool(pid_t)> started, std::string& error);
};

}  // namespace kiln::compositor
