// xdg_toplevel_tag_manager_v1: set_toplevel_tag and set_toplevel_description stored per xdg_toplevel.
#include "compositor/protocols/desktop/xdg_toplevel_tag_v1.hpp"

#include "compositor/shell/xdg/xdg_surface.hpp"
#include "compositor/shell/xdg/xdg_toplevel.hpp"

#include "xdg-toplevel-tag-v1-protocol.h"

namespace kiln::compositor {

// One xdg_toplevel's tag and description; its listener drops it with the xdg_toplevel's resource.
struct XdgToplevelTagV1::Labels {
    XdgToplevelTagV1* owner = nullptr;
    wl_resource* toplevel = nullptr;
    std::string tag;
    std::string description;
    wl_listener toplevel_destroyed{};
};

namespace {

XdgToplevelTagV1* owner_of(wl_resource* manager)
{
    return static_cast<XdgToplevelTagV1*>(wl_resource_get_user_data(manager));
}

}  // namespace

XdgToplevelTagV1::XdgToplevelTagV1(wl_display* display)
    : global_(wl_global_create(display, &xdg_toplevel_tag_manager_v1_interface, 1, this, bind))
{
}

XdgToplevelTagV1::~XdgToplevelTagV1()
{
    for (auto& [resource, labels] : labels_)
        wl_list_remove(&labels->toplevel_destroyed.link);
    if (global_)
        wl_global_destroy(global_);
}

XdgToplevelTagV1::Labels* XdgToplevelTagV1::labels(wl_resource* toplevel)
{
    if (auto it = labels_.find(toplevel); it != labels_.end())
        return it->second.get();
    auto labels = std::make_unique<Labels>();
    labels->owner = this;
    labels->toplevel = toplevel;
    labels->toplevel_destroyed.notify = [](wl_listener* listener, void*) noexcept {
        Labels* gone = wl_container_of(listener, gone, toplevel_destroyed);
        wl_list_remove(&gone->toplevel_destroyed.link);
        gone->owner->labels_.erase(gone->toplevel);  // frees `gone`
    };
    wl_resource_add_destroy_listener(toplevel, &labels->toplevel_destroyed);
    return labels_.emplace(toplevel, std::move(labels)).first->second.get();
}

const XdgToplevelTagV1::Labels* XdgToplevelTagV1::find(wlr_surface* surface) const
{
    // Few windows carry labels; the xdg_toplevel resource is the key because tags come before kiln's window exists.
    for (const auto& [resource, labels] : labels_) {
        const xdg::Toplevel* toplevel = xdg::Toplevel::from_resource(resource);
        if (toplevel && toplevel->base().surface() == surface)
            return labels.get();
    }
    return nullptr;
}

std::string XdgToplevelTagV1::tag_of(wlr_surface* surface) const
{
    const Labels* labels = find(surface);
    return labels ? labels->tag : std::string();
}

std::string XdgToplevelTagV1::description_of(wlr_surface* surface) const
{
    const Labels* labels = find(surface);
    return labels ? labels->description : std::string();
}

void XdgToplevelTagV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource =
        wl_resource_create(client, &xdg_toplevel_tag_manager_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    // The protocol defines no errors: an inert xdg_toplevel's label is ignored, as its other requests are.
    static const struct xdg_toplevel_tag_manager_v1_interface requests = {
        .destroy = [](wl_client*, wl_resource* manager) noexcept { wl_resource_destroy(manager); },
        .set_toplevel_tag =
            [](wl_client*, wl_resource* manager, wl_resource* toplevel, const char* tag) noexcept {
                if (!xdg::Toplevel::from_resource(toplevel))
                    return;
                if (Labels* labels = owner_of(manager)->labels(toplevel))
                    labels->tag = tag;
            },
        .set_toplevel_description =
            [](wl_client*, wl_resource* manager, wl_resource* toplevel, const char* description) noexcept {
                if (!xdg::Toplevel::from_resource(toplevel))
                    return;
                if (Labels* labels = owner_of(manager)->labels(toplevel))
                    labels->description = description;
            },
    };
    wl_resource_set_implementation(resource, &requests, data, nullptr);
}

}  // namespace kiln::compositor
