// xdg_wm_base requests (destroy with live surfaces is defunct_surfaces), pings with their timeout, and the global.
#include "compositor/shell/xdg/detach_listeners.hpp"
#include "compositor/log.hpp"
#include "compositor/shell/xdg/xdg_wm_base.hpp"

#include "compositor/shell/xdg/xdg_popup_grab.hpp"
#include "compositor/shell/xdg/xdg_positioner.hpp"
#include "compositor/shell/xdg/xdg_surface.hpp"

#include "xdg-shell-protocol.h"

#include <cstdio>
#include <vector>

namespace kiln::compositor::xdg {
namespace {

WmClient* client_of(wl_resource* resource)
{
    return static_cast<WmClient*>(wl_resource_get_user_data(resource));
}

const struct xdg_wm_base_interface implementation = {
    .destroy =
        [](wl_client*, wl_resource* resource) noexcept {
            if (client_of(resource)->has_surfaces()) {
                wl_resource_post_error(resource, XDG_WM_BASE_ERROR_DEFUNCT_SURFACES,
                                       "xdg_wm_base destroyed while it has xdg_surfaces");
                return;
            }
            wl_resource_destroy(resource);
        },
    .create_positioner =
        [](wl_client* client, wl_resource* resource, uint32_t id) noexcept {
            create_positioner(client, static_cast<uint32_t>(wl_resource_get_version(resource)), id);
        },
    .get_xdg_surface =
        [](wl_client*, wl_resource* resource, uint32_t id, wl_resource* surface_resource) noexcept {
            wlr_surface* surface = wlr_surface_from_resource(surface_resource);
            if (surface->role && !Surface::has_xdg_role(surface)) {
                wl_resource_post_error(resource, XDG_WM_BASE_ERROR_ROLE,
                                       "get_xdg_surface on a wl_surface that has the role %s", surface->role->name);
                return;
            }
            if (Surface::from(surface)) {
                wl_resource_post_error(resource, XDG_WM_BASE_ERROR_ROLE,
                                       "wl_surface@%u already has an xdg_surface",
                                       wl_resource_get_id(surface_resource));
                return;
            }
            if (wlr_surface_has_buffer(surface) ||
                ((surface->pending.committed & WLR_SURFACE_STATE_BUFFER) && surface->pending.buffer)) {
                wl_resource_post_error(resource, XDG_WM_BASE_ERROR_INVALID_SURFACE_STATE,
                                       "get_xdg_surface on a wl_surface that already has a buffer");
                return;
            }
            // Owned by its resource (freed in its destroy callback) or by the wl_surface's destroy.
            new Surface(*client_of(resource), surface, static_cast<uint32_t>(wl_resource_get_version(resource)), id);
        },
    .pong = [](wl_client*, wl_resource* resource, uint32_t serial) noexcept { client_of(resource)->pong(serial); },
};

}  // namespace

WmClient::WmClient(WmBase& shell, wl_client* client, uint32_t version, uint32_t id)
    : shell_(shell),
      client_(client),
      resource_(wl_resource_create(client, &xdg_wm_base_interface, static_cast<int>(version), id)),
      ping_timer_(wl_event_loop_add_timer(
          wl_display_get_event_loop(shell.display()),
          [](void* data) noexcept {
              auto* self = static_cast<WmClient*>(data);
              // A copy: a listener may end a surface (kiln does not, but a role might go meanwhile).
              const std::vector<Surface*> surfaces(self->surfaces_.begin(), self->surfaces_.end());
              for (Surface* surface : surfaces)
                  wl_signal_emit(&surface->events.ping_timeout, surface);
              self->ping_serial_ = 0;
              return 0;
          },
          this))
{
    wl_resource_set_implementation(resource_, &implementation, this, [](wl_resource* resource) noexcept {
        WmClient* self = client_of(resource);
        self->shell_.remove(self);
    });
}

WmClient::~WmClient()
{
    // Surfaces of a client that goes are destroyed with their resources, before or after this: they no longer
    // point here.
    // A copy: each one leaves the list as it goes.
    const std::vector<Surface*> surfaces(surfaces_.begin(), surfaces_.end());
    for (Surface* surface : surfaces)
        surface->make_inert();
    if (ping_timer_)
        wl_event_source_remove(ping_timer_);
}

void WmClient::ping()
{
    if (ping_serial_ != 0)
        return;  // one outstanding ping is enough: its timer runs
    ping_serial_ = wl_display_next_serial(shell_.display());
    xdg_wm_base_send_ping(resource_, ping_serial_);
    if (ping_timer_)
        wl_event_source_timer_update(ping_timer_, shell_.ping_timeout_ms);
}

void WmClient::pong(uint32_t serial)
{
    if (serial != ping_serial_ || serial == 0)
        return;  // a stale or made-up answer is ignored
    ping_serial_ = 0;
    if (ping_timer_)
        wl_event_source_timer_update(ping_timer_, 0);
}

WmBase::WmBase(wl_display* display)
    : display_(display),
      global_(wl_global_create(display, &xdg_wm_base_interface, version, this,
                               [](wl_client* client, void* data, uint32_t version, uint32_t id) noexcept {
                                   auto* self = static_cast<WmBase*>(data);
                                   self->clients_.push_back(std::make_unique<WmClient>(*self, client, version, id));
                               }))
{
    wl_signal_init(&events.new_surface);
    if (!global_)
        log::error("could not create the xdg_wm_base global");
}

WmBase::~WmBase()
{
    detach_listeners(&events.new_surface);
    if (global_)
        wl_global_destroy(global_);
    // Bound objects outlive kiln's shell only while the display is torn down: they turn inert.
    for (auto& client : clients_)
        wl_resource_set_destructor(client->resource(), nullptr);
    clients_.clear();
}

PopupGrabs& WmBase::grabs(wlr_seat* seat)
{
    if (!grabs_ || grabs_->seat() != seat)
        grabs_ = std::make_unique<PopupGrabs>(seat);
    return *grabs_;
}

void WmBase::remove(WmClient* client)
{
    clients_.erase(client);
}

}  // namespace kiln::compositor::xdg
