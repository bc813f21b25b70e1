// RequestGuards: the checks that run before libwayland dispatches a request (xdg-shell's attach rule, wlroots 0.15's
// crashes defused, wl_shm's stride, wl_surface.destroy before its role, each client's limits), owned here and made
// in Server::start()'s order. Each only holds its hooks in the request table (and RequestGuard the user data it hid);
// Server declares this group right after the table, so they all go just before it.
#pragma once

#include "compositor/protocols/security/client_limits.hpp"
#include "compositor/protocols/security/request_guard.hpp"
#include "compositor/protocol_kit/request_hooks.hpp"
#include "compositor/protocols/buffers/wl_shm_validation.hpp"
#include "compositor/shell/defunct_role_guard.hpp"
#include "compositor/shell/xdg_surface_rules.hpp"

#include <memory>

namespace kiln::compositor {

// The guards, owned: destroyed in reverse declaration order, before the request table.
struct RequestGuards {
    RequestGuards() = default;
    RequestGuards(const RequestGuards&) = delete;
    RequestGuards& operator=(const RequestGuards&) = delete;

    std::unique_ptr<XdgSurfaceRules> xdg_surface_rules;
    std::unique_ptr<RequestGuard> request_guard;
    std::unique_ptr<WlShmValidation> shm_validation;
    std::unique_ptr<DefunctRoleGuard> defunct_role_guard;
    std::unique_ptr<ClientLimits> client_limits;

    // Before any client connects: the per-client limits on objects and shm mappings.
    void make_client_limits(wl_display* display, RequestHooks& requests);
    // Once wl_shm exists: its stride check.
    void make_shm_validation(RequestHooks& requests);
    // The rest, once the buffer and surface protocols exist.
    void make(RequestHooks& requests);
};

}  // namespace kiln::compositor
