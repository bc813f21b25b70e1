// xdg_surface requests and the role hooks wlroots calls on each commit of a toplevel's or popup's wl_surface.
#include "compositor/shell/xdg/detach_listeners.hpp"
#include "compositor/shell/xdg/xdg_surface.hpp"

#include "compositor/shell/xdg/xdg_popup_grab.hpp"
#include "compositor/shell/xdg/xdg_wm_base.hpp"

#include "xdg-shell-protocol.h"

namespace kiln::compositor::xdg {
namespace {

void role_commit(wlr_surface* surface) noexcept
{
    if (Surface* xdg = Surface::from(surface))
        xdg->role_commit();
}

void role_precommit(wlr_surface* surface) noexcept
{
    if (Surface* xdg = Surface::from(surface))
        xdg->role_precommit();
}

const wlr_surface_role toplevel_role = {"xdg_toplevel", role_commit, role_precommit};
const wlr_surface_role popup_role = {"xdg_popup", role_commit, role_precommit};

// The xdg_surface of a wl_surface, found through the surface's addon set (a surface has at most one).
struct SurfaceAddon {
    wlr_addon addon;
    Surface* surface;
};

void addon_destroy(wlr_addon* addon) noexcept;
const wlr_addon_interface addon_interface = {"kiln_xdg_surface", addon_destroy};

void addon_destroy(wlr_addon* addon) noexcept
{
    // The wl_surface is going: its xdg_surface turns inert.
    SurfaceAddon* link = wl_container_of(addon, link, addon);
    link->surface->make_inert();
}

const struct xdg_surface_interface implementation = {
    .destroy =
        [](wl_client*, wl_resource* resource) noexcept {
            Surface* self = Surface::from_resource(resource);
            if (self && (self->toplevel() || self->popup())) {
                wl_resource_post_error(resource, XDG_SURFACE_ERROR_DEFUNCT_ROLE_OBJECT,
                                       "xdg_surface destroyed before its role object");
                return;
            }
            wl_resource_destroy(resource);
        },
    .get_toplevel =
        [](wl_client* client, wl_resource* resource, uint32_t id) noexcept {
            Surface* self = Surface::from_resource(resource);
            if (!self)
                return;
            if (self->role() != Role::none) {
                wl_resource_post_error(resource, XDG_SURFACE_ERROR_ALREADY_CONSTRUCTED,
                                       "xdg_surface already has a role object");
                return;
            }
            if (!wlr_surface_set_role(self->surface(), &toplevel_role, self, self->client().resource(),
                                      XDG_WM_BASE_ERROR_ROLE))
                return;
            self->set_toplevel(client, static_cast<uint32_t>(wl_resource_get_version(resource)), id);
        },
    .get_popup =
        [](wl_client* client, wl_resource* resource, uint32_t id, wl_resource* parent_resource,
           wl_resource* positioner) noexcept {
            Surface* self = Surface::from_resource(resource);
            if (!self)
                return;
            wl_resource* wm_base = self->client().resource();
            if (self->role() != Role::none) {
                wl_resource_post_error(resource, XDG_SURFACE_ERROR_ALREADY_CONSTRUCTED,
                                       "xdg_surface already has a role object");
                return;
            }
            const PositionerRules& rules = positioner_rules(positioner);
            if (!rules.complete()) {
                wl_resource_post_error(wm_base, XDG_WM_BASE_ERROR_INVALID_POSITIONER,
                                       "get_popup with a positioner that has no size or no anchor rect");
                return;
            }
            Surface* parent = nullptr;
            if (parent_resource) {
                parent = Surface::from_resource(parent_resource);
                // A parent whose wl_surface or role object is gone cannot hold a popup; nor can the popup itself
                // or one of its own descendants.
                if (parent == self) {
                    wl_resource_post_error(wm_base, XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT,
                                           "get_popup: xdg_surface@%u would be its own ancestor",
                                           wl_resource_get_id(resource));
                    return;
                }
                if (!parent) {
                    wl_resource_post_error(wm_base, XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT,
                                           "get_popup: the parent xdg_surface@%u is gone",
                                           wl_resource_get_id(parent_resource));
                    return;
                }
                // A parent with no role yet is refused at the popup's first commit (it may get one by then).
                for (Surface* ancestor = parent; ancestor;) {
                    if (ancestor == self) {
                        wl_resource_post_error(wm_base, XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT,
                                               "get_popup: xdg_surface@%u would be its own ancestor",
                                               wl_resource_get_id(resource));
                        return;
                    }
                    ancestor = ancestor->popup() ? ancestor->popup()->xdg_parent() : nullptr;
                }
            }
            if (!wlr_surface_set_role(self->surface(), &popup_role, self, wm_base, XDG_WM_BASE_ERROR_ROLE))
                return;
            self->set_popup(parent, rules, client, static_cast<uint32_t>(wl_resource_get_version(resource)), id);
        },
    .set_window_geometry =
        [](wl_client*, wl_resource* resource, int32_t x, int32_t y, int32_t width, int32_t height) noexcept {
            if (Surface* self = Surface::from_resource(resource))
                self->set_window_geometry(x, y, width, height);
        },
    .ack_configure =
        [](wl_client*, wl_resource* resource, uint32_t serial) noexcept {
            if (Surface* self = Surface::from_resource(resource))
                self->ack_configure(serial);
        },
};

}  // namespace

Surface::Surface(WmClient& client, wlr_surface* surface, uint32_t version, uint32_t id)
    : client_(client),
      surface_(surface),
      resource_(wl_resource_create(client.client(), &xdg_surface_interface, static_cast<int>(version), id))
{
    wl_signal_init(&events.destroy);
    wl_signal_init(&events.map);
    wl_signal_init(&events.unmap);
    wl_signal_init(&events.commit);
    wl_signal_init(&events.configure);
    wl_signal_init(&events.ack_configure);
    wl_signal_init(&events.ping_timeout);
    if (!resource_) {
        wl_client_post_no_memory(client.client());
        delete this;
        return;
    }
    wl_resource_set_implementation(resource_, &implementation, this, [](wl_resource* r) noexcept {
        if (Surface* self = Surface::from_resource(r))
            self->make_inert();
    });
    auto* link = new SurfaceAddon{};
    link->surface = this;
    wlr_addon_init(&link->addon, &surface->addons, &addon_interface, &addon_interface);
    addon_ = &link->addon;
    client_.add(this);
    // The wl_surface going unmaps the window before anything that took an interest in it later (the seat's focus)
    // hears of it, as it did with wlroots' xdg-shell: focus then moves on to the next window.
    surface_destroy_.connect(&surface->events.destroy, [this](void*) { make_inert(); });
    // Until it has a role, wlroots calls no role hook: a commit then is the client's error.
    surface_commit_.connect(&surface->events.commit, [this](void*) {
        if (role_ != Role::none)
            return;
        if (wlr_surface_has_buffer(surface_) && !configured_)
            wl_resource_post_error(resource_, XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER,
                                   "a buffer committed before the xdg_surface was configured");
        else if (!surface_->role)
            wl_resource_post_error(resource_, XDG_SURFACE_ERROR_NOT_CONSTRUCTED,
                                   "xdg_surface committed before it has a role");
    });
}

Surface::~Surface()
{
    for (wl_signal* signal : {&events.destroy, &events.map, &events.unmap, &events.commit, &events.configure,
                              &events.ack_configure, &events.ping_timeout})
        detach_listeners(signal);
}

Surface* Surface::from(wlr_surface* surface)
{
    if (!surface)
        return nullptr;
    wlr_addon* addon = wlr_addon_find(&surface->addons, &addon_interface, &addon_interface);
    if (!addon)
        return nullptr;
    SurfaceAddon* link = wl_container_of(addon, link, addon);
    return link->surface;
}

Surface* Surface::from_resource(wl_resource* resource)
{
    return resource ? static_cast<Surface*>(wl_resource_get_user_data(resource)) : nullptr;
}

bool frame_callbacks_held(wlr_surface* surface)
{
    wlr_surface* root = surface ? wlr_surface_get_root_surface(surface) : nullptr;
    const Surface* xdg = Surface::from(root);
    return xdg && xdg->toplevel() && xdg->toplevel()->pending().suspended;
}

bool Surface::has_xdg_role(wlr_surface* surface)
{
    return surface && (surface->role == &toplevel_role || surface->role == &popup_role);
}

wl_client* Surface::wl_client_of() const
{
    return client_.client();
}

void Surface::set_toplevel(wl_client* client, uint32_t version, uint32_t id)
{
    role_ = Role::toplevel;
    toplevel_ = std::make_unique<Toplevel>(*this, client, version, id);
}

void Surface::set_popup(Surface* parent, const PositionerRules& rules, wl_client* client, uint32_t version,
                        uint32_t id)
{
    role_ = Role::popup;
    popup_ = std::make_unique<Popup>(*this, parent, rules, client_.shell(), client, version, id);
}

void Surface::set_window_geometry(int32_t x, int32_t y, int32_t width, int32_t height)
{
    if (role_ == Role::none) {
        wl_resource_post_error(resource_, XDG_SURFACE_ERROR_NOT_CONSTRUCTED,
                               "set_window_geometry before the xdg_surface has a role");
        return;
    }
    if (width <= 0 || height <= 0) {
        wl_resource_post_error(resource_, XDG_SURFACE_ERROR_INVALID_SIZE, "window geometry %dx%d is not positive",
                               width, height);
        return;
    }
    pending_geometry_ = {x, y, width, height};
    geometry_pending_set_ = true;
}

void Surface::ack_configure(uint32_t serial)
{
    if (role_ == Role::none) {
        wl_resource_post_error(resource_, XDG_SURFACE_ERROR_NOT_CONSTRUCTED,
                               "ack_configure before the xdg_surface has a role");
        return;
    }
    auto it = configures_.begin();
    while (it != configures_.end() && it->serial != serial)
        ++it;
    if (it == configures_.end()) {
        wl_resource_post_error(resource_, XDG_SURFACE_ERROR_INVALID_SERIAL, "no configure was sent with serial %u",
                               serial);
        return;
    }
    // Acknowledging a configure acknowledges the earlier ones too.
    Configure acked = *it;
    configures_.erase(configures_.begin(), std::next(it));
    configured_ = true;
    if (toplevel_)
        toplevel_->acked(acked.toplevel);
    wl_signal_emit(&events.ack_configure, &acked);
}

wlr_box Surface::geometry() const
{
    wlr_box box{};
    wlr_surface_get_extends(surface_, &box);
    if (has_geometry_ && current_geometry_.width > 0 && current_geometry_.height > 0) {
        // What the client set, within what it draws (wlroots did the same).
        wlr_box clipped{};
        if (wlr_box_intersection(&clipped, &box, &current_geometry_))
            return clipped;
        return current_geometry_;
    }
    return box;
}

uint32_t Surface::schedule_configure()
{
    // Nothing goes out before the role's initial commit asks for the first configure.
    if (!initial_sent_ || role_ == Role::none)
        return 0;
    if (configure_idle_)
        return scheduled_serial_;
    wl_display* display = client_.shell().display();
    scheduled_serial_ = wl_display_next_serial(display);
    configure_idle_ = wl_event_loop_add_idle(
        wl_display_get_event_loop(display), [](void* data) noexcept { static_cast<Surface*>(data)->send_configure(); },
        this);
    return scheduled_serial_;
}

void Surface::send_configure()
{
    configure_idle_ = nullptr;
    Configure configure;
    configure.serial = scheduled_serial_;
    if (toplevel_) {
        configure.toplevel = toplevel_->pending();
        toplevel_->send_configure(configure.toplevel);
    } else if (popup_) {
        popup_->send_configure();
    } else {
        return;
    }
    configures_.push_back(configure);
    wl_signal_emit(&events.configure, &configures_.back());
    xdg_surface_send_configure(resource_, configure.serial);
}

void Surface::ping()
{
    client_.ping();
}

void Surface::role_precommit()
{
    // A commit of no buffer unmaps the surface: the client starts over with an initial commit.
    if ((surface_->pending.committed & WLR_SURFACE_STATE_BUFFER) && !surface_->pending.buffer && mapped_) {
        unmap();
        unmapped_now_ = true;
    }
}

void Surface::role_commit()
{
    const bool unmapped_now = unmapped_now_;
    unmapped_now_ = false;
    if (role_ == Role::none)
        return;  // the role object is gone: the surface keeps the role but nothing to do
    if (wlr_surface_has_buffer(surface_) && !configured_) {
        wl_resource_post_error(resource_, XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER,
                               "a buffer committed before the xdg_surface acknowledged a configure");
        return;
    }
    if (popup_ && popup_->dismissed())
        return;  // a dismissed popup is never shown again
    if (geometry_pending_set_) {
        current_geometry_ = pending_geometry_;
        has_geometry_ = true;
        geometry_pending_set_ = false;
    }
    if (toplevel_)
        toplevel_->commit();
    if (popup_ && popup_->xdg_parent() && popup_->xdg_parent()->role() == Role::none && !added_) {
        wl_resource_post_error(client_.resource(), XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT,
                               "the popup's parent xdg_surface has no live toplevel or popup role");
        return;
    }
    if (popup_ && !popup_->parent()) {
        // Layer-shell names a null parent before the first commit; no parent by then is an error.
        wl_resource_post_error(resource_, XDG_SURFACE_ERROR_NOT_CONSTRUCTED,
                               "a popup committed without a parent");
        return;
    }
    if (!initial_sent_ && !unmapped_now) {
        initial_sent_ = true;
        schedule_configure();
    }
    if (!added_) {
        added_ = true;
        wl_signal_emit(&client_.shell().events.new_surface, this);
    }
    if (configured_ && wlr_surface_has_buffer(surface_) && !mapped_) {
        mapped_ = true;
        wl_signal_emit(&events.map, this);
    }
    wl_signal_emit(&events.commit, this);
}

void Surface::unmap()
{
    // Popups go before their parent; a copy, as each dismissal leaves the list.
    const std::vector<Popup*> children(popups_.begin(), popups_.end());
    for (Popup* child : children)
        child->dismiss();
    if (mapped_) {
        mapped_ = false;
        wl_signal_emit(&events.unmap, this);
    }
    configured_ = false;
    initial_sent_ = false;
    configures_.clear();
    if (configure_idle_) {
        wl_event_source_remove(configure_idle_);
        configure_idle_ = nullptr;
    }
    if (toplevel_)
        toplevel_->forget_sent();
}

void Surface::role_destroyed()
{
    unmap();
    if (added_) {
        added_ = false;
        wl_signal_emit(&events.destroy, this);
    }
    data = nullptr;  // kiln's scene tree went with the role
    if (toplevel_) {
        toplevel_->make_inert();
        toplevel_.reset();
    }
    if (popup_) {
        popup_->make_inert();
        popup_.reset();
    }
    role_ = Role::none;
    has_geometry_ = false;
    geometry_pending_set_ = false;
}

void Surface::make_inert()
{
    role_destroyed();
    surface_commit_.disconnect();
    // Popups whose parent this was lose it (they were dismissed above).
    for (Popup* child : popups_)
        child->parent_gone();
    popups_.clear();
    wl_resource_set_user_data(resource_, nullptr);
    if (surface_->role_data == this)
        surface_->role_data = nullptr;
    SurfaceAddon* link = wl_container_of(addon_, link, addon);
    wlr_addon_finish(addon_);
    delete link;
    client_.remove(this);
    delete this;
}

}  // namespace kiln::compositor::xdg
