// xdg_popup requests (grab with its rules, reposition, destroy only when topmost) and its configure events.
#include "compositor/shell/xdg/detach_listeners.hpp"
#include "compositor/shell/xdg/xdg_popup.hpp"

#include "compositor/shell/xdg/xdg_popup_grab.hpp"
#include "compositor/shell/xdg/xdg_surface.hpp"
#include "compositor/shell/xdg/xdg_wm_base.hpp"

#include "xdg-shell-protocol.h"

namespace kiln::compositor::xdg {

struct PopupRequests {
    static void grab(wl_resource* resource, wl_resource* seat_resource, uint32_t serial)
    {
        Popup* popup = Popup::from_resource(resource);
        if (!popup)
            return;
        Surface& base = popup->base_;
        if (base.added()) {
            wl_resource_post_error(resource, XDG_POPUP_ERROR_INVALID_GRAB, "grab after the popup's first commit");
            return;
        }
        wlr_seat_client* seat_client = wlr_seat_client_from_resource(seat_resource);
        if (popup->dismissed_ || !seat_client)
            return;
        PopupGrabs& grabs = popup->shell_.grabs(seat_client->seat);
        if (Surface* parent = popup->parent_; parent && parent->popup()) {
            Popup* parent_popup = parent->popup();
            if (parent_popup->dismissed_) {
                popup->dismiss();  // its parent's grab is over already
                return;
            }
            if (!parent_popup->grabbed_) {
                wl_resource_post_error(base.client().resource(), XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT,
                                       "a grabbing popup's parent popup has no grab");
                return;
            }
            if (grabs.topmost() != parent_popup) {
                wl_resource_post_error(base.client().resource(), XDG_WM_BASE_ERROR_NOT_THE_TOPMOST_POPUP,
                                       "a grabbing popup on a popup that is not the topmost");
                return;
            }
        }
        // Only in answer to an input event the client got (a press, a key, a touch): a forged or stale serial
        // is refused and the popup dismissed at once.
        if (!wlr_seat_client_validate_event_serial(seat_client, serial)) {
            popup->dismiss();
            return;
        }
        popup->grabbed_ = true;
        popup->grab_seat_ = seat_client->seat;
        grabs.add(popup);
    }

    static void reposition(wl_resource* resource, wl_resource* positioner, uint32_t token)
    {
        Popup* popup = Popup::from_resource(resource);
        if (!popup)
            return;
        const PositionerRules& rules = positioner_rules(positioner);
        if (!rules.complete()) {
            wl_resource_post_error(popup->base_.client().resource(), XDG_WM_BASE_ERROR_INVALID_POSITIONER,
                                   "reposition with a positioner that has no size or no anchor rect");
            return;
        }
        popup->rules_ = rules;
        popup->geometry = rules.geometry();
        popup->repositioned_pending_ = true;
        popup->reposition_token_ = token;
        wl_signal_emit(&popup->events.reposition, popup);
        popup->base_.schedule_configure();
    }
};

namespace {

const struct xdg_popup_interface implementation = {
    .destroy =
        [](wl_client*, wl_resource* resource) noexcept {
            Popup* popup = Popup::from_resource(resource);
            if (popup && !popup->base().popups().empty()) {
                wl_resource_post_error(popup->base().client().resource(), XDG_WM_BASE_ERROR_NOT_THE_TOPMOST_POPUP,
                                       "a popup destroyed before its own popups");
                return;
            }
            wl_resource_destroy(resource);
        },
    .grab = [](wl_client*, wl_resource* resource, wl_resource* seat,
               uint32_t serial) noexcept { PopupRequests::grab(resource, seat, serial); },
    .reposition = [](wl_client*, wl_resource* resource, wl_resource* positioner,
                     uint32_t token) noexcept { PopupRequests::reposition(resource, positioner, token); },
};

}  // namespace

Popup::Popup(Surface& base, Surface* parent, const PositionerRules& rules, WmBase& shell, wl_client* client,
             uint32_t version, uint32_t id)
    : base_(base),
      parent_(parent),
      parent_surface_(parent ? parent->surface() : nullptr),
      rules_(rules),
      shell_(shell),
      resource_(wl_resource_create(client, &xdg_popup_interface, static_cast<int>(version), id))
{
    wl_signal_init(&events.reposition);
    wl_signal_init(&events.destroy);
    geometry = rules.geometry();
    if (!resource_) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource_, &implementation, this, [](wl_resource* resource) noexcept {
        if (Popup* self = Popup::from_resource(resource))
            self->base_.role_destroyed();  // frees this
    });
    if (parent_)
        parent_->add_child(this);
}

Popup::~Popup()
{
    wl_signal_emit(&events.destroy, this);
    if (grabbed_)
        shell_.grabs(grab_seat_).remove(this);
    if (parent_)
        parent_->remove_child(this);
    detach_listeners(&events.reposition);
    detach_listeners(&events.destroy);
}

Popup* Popup::from_resource(wl_resource* resource)
{
    return resource ? static_cast<Popup*>(wl_resource_get_user_data(resource)) : nullptr;
}

void Popup::set_parent(wlr_surface* parent)
{
    parent_surface_ = parent;
    parent_surface_destroy_.connect(&parent->events.destroy, [this](void*) {
        parent_surface_ = nullptr;
        parent_surface_destroy_.disconnect();
        dismiss();
    });
}

void Popup::parent_gone()
{
    parent_ = nullptr;
    parent_surface_ = nullptr;
}

void Popup::dismiss()
{
    if (dismissed_)
        return;
    dismissed_ = true;
    if (grabbed_) {
        grabbed_ = false;
        shell_.grabs(grab_seat_).remove(this);
    }
    base_.unmap();  // its own popups are dismissed first
    if (resource_)
        xdg_popup_send_popup_done(resource_);
}

void Popup::send_configure()
{
    if (repositioned_pending_ && wl_resource_get_version(resource_) >= XDG_POPUP_REPOSITIONED_SINCE_VERSION)
        xdg_popup_send_repositioned(resource_, reposition_token_);
    repositioned_pending_ = false;
    xdg_popup_send_configure(resource_, geometry.x, geometry.y, geometry.width, geometry.height);
}

void Popup::make_inert()
{
    if (grabbed_) {
        grabbed_ = false;
        shell_.grabs(grab_seat_).remove(this);
    }
    if (resource_)
        wl_resource_set_user_data(resource_, nullptr);
}

}  // namespace kiln::compositor::xdg
