// xdg_wm_dialog_v1 and xdg_dialog_v1: one dialog object per xdg_toplevel, whose modal hint goes to Toplevels.
#include "compositor/protocols/desktop/xdg_dialog_v1.hpp"
#include "compositor/shell/xdg/xdg_surface.hpp"

#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/toplevels.hpp"

#include "xdg-dialog-v1-protocol.h"

#include <new>

namespace kiln::compositor {

// One xdg_dialog_v1; inert (toplevel null) once its xdg_toplevel is gone.
struct XdgDialogV1::Dialog {
    XdgDialogV1* owner = nullptr;
    wl_resource* resource = nullptr;
    wl_resource* toplevel = nullptr;  // the xdg_toplevel's resource
    bool modal = false;
    wl_listener toplevel_destroyed{};
};

namespace {

void destroy_request(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

XdgDialogV1::Dialog* dialog_from(wl_resource* resource)
{
    return static_cast<XdgDialogV1::Dialog*>(wl_resource_get_user_data(resource));
}

}  // namespace

void XdgDialogV1::apply(Dialog& dialog, bool modal)
{
    dialog.modal = modal;
    if (!dialog.toplevel)
        return;
    xdg::Toplevel* xdg = xdg::Toplevel::from_resource(dialog.toplevel);
    if (Toplevel* toplevel = xdg ? toplevels_.find(xdg->base().surface()) : nullptr)
        toplevels_.set_modal(*toplevel, modal);
}

// The dialog's effects end with it (or with its window), as the protocol asks.
void XdgDialogV1::forget(Dialog& dialog)
{
    if (!dialog.toplevel)
        return;
    if (dialog.modal)
        apply(dialog, false);
    dialogs_.erase(dialog.toplevel);
    wl_list_remove(&dialog.toplevel_destroyed.link);
    dialog.toplevel = nullptr;
}

void XdgDialogV1::get_dialog(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* toplevel) noexcept
{
    auto* self = static_cast<XdgDialogV1*>(wl_resource_get_user_data(manager));
    if (self->dialogs_.count(toplevel)) {
        wl_resource_post_error(manager, XDG_WM_DIALOG_V1_ERROR_ALREADY_USED,
                               "this xdg_toplevel already has an xdg_dialog_v1");
        return;
    }
    auto* dialog = new (std::nothrow) Dialog();
    if (!dialog) {
        wl_client_post_no_memory(client);
        return;
    }
    dialog->resource = wl_resource_create(client, &xdg_dialog_v1_interface, wl_resource_get_version(manager), id);
    if (!dialog->resource) {
        delete dialog;
        wl_client_post_no_memory(client);
        return;
    }
    static const struct xdg_dialog_v1_interface requests = {
        .destroy = destroy_request,
        .set_modal = [](wl_client*, wl_resource* resource) noexcept {
            Dialog* d = dialog_from(resource);
            d->owner->apply(*d, true);
        },
        .unset_modal = [](wl_client*, wl_resource* resource) noexcept {
            Dialog* d = dialog_from(resource);
            d->owner->apply(*d, false);
        },
    };
    wl_resource_set_implementation(dialog->resource, &requests, dialog, [](wl_resource* resource) noexcept {
        Dialog* d = dialog_from(resource);
        d->owner->forget(*d);
        delete d;
    });
    dialog->owner = self;
    dialog->toplevel = toplevel;
    self->dialogs_.emplace(toplevel, dialog);
    // Runs before wlroots' own destructor of the xdg_toplevel: its window is still there to un-mark.
    dialog->toplevel_destroyed.notify = [](wl_listener* listener, void*) noexcept {
        Dialog* d = wl_container_of(listener, d, toplevel_destroyed);
        d->owner->forget(*d);
    };
    wl_resource_add_destroy_listener(toplevel, &dialog->toplevel_destroyed);
}

XdgDialogV1::XdgDialogV1(wl_display* display, Toplevels& toplevels)
    : toplevels_(toplevels), global_(wl_global_create(display, &xdg_wm_dialog_v1_interface, 1, this, bind))
{
    toplevel_added_.connect(&toplevels.events.add, [this](void* data) {
        auto* toplevel = static_cast<Toplevel*>(data);
        for (auto& [resource, dialog] : dialogs_) {
            xdg::Toplevel* xdg = xdg::Toplevel::from_resource(resource);
            if (dialog->modal && xdg && xdg->base().surface() == toplevel->surface())
                toplevels_.set_modal(*toplevel, true);
        }
    });
}

XdgDialogV1::~XdgDialogV1()
{
    if (global_)
        wl_global_destroy(global_);
}

void XdgDialogV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource = wl_resource_create(client, &xdg_wm_dialog_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    static const struct xdg_wm_dialog_v1_interface requests = {
        .destroy = destroy_request,
        .get_xdg_dialog = get_dialog,
    };
    wl_resource_set_implementation(resource, &requests, data, nullptr);
}

}  // namespace kiln::compositor
