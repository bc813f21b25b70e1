// zxdg_decoration_manager_v1 requests (already_constructed) and the decoration objects' configure events.
#include "compositor/shell/xdg/detach_listeners.hpp"
#include "compositor/shell/xdg/xdg_decoration_v1.hpp"

#include "compositor/shell/xdg/xdg_surface.hpp"

#include "xdg-decoration-unstable-v1-protocol.h"

#include <algorithm>

namespace kiln::compositor::xdg {
namespace {

ToplevelDecoration* decoration_from(wl_resource* resource)
{
    return static_cast<ToplevelDecoration*>(wl_resource_get_user_data(resource));
}

XdgDecorationManagerV1* manager_from(wl_resource* resource)
{
    return static_cast<XdgDecorationManagerV1*>(wl_resource_get_user_data(resource));
}

const struct zxdg_toplevel_decoration_v1_interface decoration_implementation = {
    .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
    .set_mode =
        [](wl_client*, wl_resource* resource, uint32_t mode) noexcept {
            if (mode != ZXDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE &&
                mode != ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE) {
                wl_resource_post_error(resource, ZXDG_TOPLEVEL_DECORATION_V1_ERROR_INVALID_MODE,
                                       "%u is not a decoration mode", mode);
                return;
            }
            if (ToplevelDecoration* decoration = decoration_from(resource))
                decoration->request(static_cast<ToplevelDecoration::Mode>(mode));
        },
    .unset_mode =
        [](wl_client*, wl_resource* resource) noexcept {
            if (ToplevelDecoration* decoration = decoration_from(resource))
                decoration->request(ToplevelDecoration::Mode::none);
        },
};

const struct zxdg_decoration_manager_v1_interface manager_implementation = {
    .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
    .get_toplevel_decoration =
        [](wl_client* client, wl_resource* resource, uint32_t id, wl_resource* toplevel_resource) noexcept {
            XdgDecorationManagerV1* manager = manager_from(resource);
            Toplevel* toplevel = Toplevel::from_resource(toplevel_resource);
            if (!manager)
                return;
            if (toplevel && manager->decoration_of(&toplevel->base())) {
                wl_resource_post_error(resource, ZXDG_TOPLEVEL_DECORATION_V1_ERROR_ALREADY_CONSTRUCTED,
                                       "the xdg_toplevel already has a decoration object");
                return;
            }
            if (toplevel && wlr_surface_has_buffer(toplevel->base().surface())) {
                wl_resource_post_error(resource, ZXDG_TOPLEVEL_DECORATION_V1_ERROR_UNCONFIGURED_BUFFER,
                                       "the xdg_toplevel already has a buffer");
                return;
            }
            wl_resource* decoration_resource = wl_resource_create(client, &zxdg_toplevel_decoration_v1_interface,
                                                                  wl_resource_get_version(resource), id);
            if (!decoration_resource) {
                wl_client_post_no_memory(client);
                return;
            }
            // An inert toplevel gets an inert decoration.
            wl_resource_set_implementation(decoration_resource, &decoration_implementation, nullptr,
                                           [](wl_resource* r) noexcept {
                                               if (ToplevelDecoration* decoration = decoration_from(r)) {
                                                   wl_signal_emit(&decoration->events.destroy, decoration);
                                                   decoration->manager().remove(decoration);
                                               }
                                           });
            if (!toplevel)
                return;
            manager->add(std::make_unique<ToplevelDecoration>(*manager, decoration_resource, toplevel->base()));
        },
};

}  // namespace

ToplevelDecoration::ToplevelDecoration(XdgDecorationManagerV1& manager, wl_resource* resource, Surface& surface)
    : manager_(manager), resource_(resource), surface_(surface)
{
    wl_signal_init(&events.request_mode);
    wl_signal_init(&events.destroy);
    wl_resource_set_user_data(resource, this);
    // Its configure goes out just before the xdg_surface.configure that completes the sequence.
    configure_.connect(&surface.events.configure, [this](void*) {
        if (!owed_)
            return;
        owed_ = false;
        zxdg_toplevel_decoration_v1_send_configure(resource_, static_cast<uint32_t>(mode_));
    });
    // Its toplevel went first (the client was told orphaned, or is going): it turns inert.
    role_destroy_.connect(&surface.toplevel()->events.destroy, [this](void*) {
        inert_ = true;
        configure_.disconnect();
        role_destroy_.disconnect();
    });
}

ToplevelDecoration::~ToplevelDecoration()
{
    wl_resource_set_user_data(resource_, nullptr);
    detach_listeners(&events.request_mode);
    detach_listeners(&events.destroy);
}

void ToplevelDecoration::request(Mode mode)
{
    requested_ = mode;
    owed_ = true;
    wl_signal_emit(&events.request_mode, this);
    if (!inert_)
        surface_.schedule_configure();
}

void ToplevelDecoration::set_mode(Mode mode)
{
    if (mode == mode_ && !owed_)
        return;
    mode_ = mode;
    owed_ = true;
    if (!inert_)
        surface_.schedule_configure();
}

XdgDecorationManagerV1::XdgDecorationManagerV1(wl_display* display)
    : global_(wl_global_create(display, &zxdg_decoration_manager_v1_interface, 1, this,
                               [](wl_client* client, void* data, uint32_t version, uint32_t id) noexcept {
                                   wl_resource* resource = wl_resource_create(
                                       client, &zxdg_decoration_manager_v1_interface, static_cast<int>(version), id);
                                   if (!resource) {
                                       wl_client_post_no_memory(client);
                                       return;
                                   }
                                   wl_resource_set_implementation(resource, &manager_implementation, data, nullptr);
                               }))
{
    wl_signal_init(&events.new_decoration);
}

XdgDecorationManagerV1::~XdgDecorationManagerV1()
{
    decorations_.clear();
    detach_listeners(&events.new_decoration);
    if (global_)
        wl_global_destroy(global_);
}

ToplevelDecoration* XdgDecorationManagerV1::decoration_of(const Surface* surface) const
{
    for (const auto& decoration : decorations_)
        if (decoration->surface() == surface)
            return decoration.get();
    return nullptr;
}

void XdgDecorationManagerV1::add(std::unique_ptr<ToplevelDecoration> decoration)
{
    ToplevelDecoration* added = decoration.get();
    decorations_.push_back(std::move(decoration));
    wl_signal_emit(&events.new_decoration, added);
}

void XdgDecorationManagerV1::remove(ToplevelDecoration* decoration)
{
    decorations_.erase(decoration);
}

}  // namespace kiln::compositor::xdg
