// RequestGuards: the request checks made in Server::start()'s order.
#include "compositor/protocols/request_guards.hpp"

namespace kiln::compositor {

void RequestGuards::make_client_limits(wl_display* display, RequestHooks& requests)
{
    client_limits = std::make_unique<ClientLimits>(display, requests);
}

void RequestGuards::make_shm_validation(RequestHooks& requests)
{
    shm_validation = std::make_unique<WlShmValidation>(requests);
}

void RequestGuards::make(RequestHooks& requests)
{
    defunct_role_guard = std::make_unique<DefunctRoleGuard>(requests);
    request_guard = std::make_unique<RequestGuard>(requests);
    xdg_surface_rules = std::make_unique<XdgSurfaceRules>(requests);
}

}  // namespace kiln::compositor
