// StreamLinks: Link globals whose output node is ours, bound to learn when each becomes active.
#include "stream_links.hpp"

#include <algorithm>
#include <string>

#include <pipewire/pipewire.h>

namespace portal {

StreamLinks::StreamLinks(pw_core* core, uint32_t node_id, std::function<void()> joined)
    : node_id_(node_id), joined_(std::move(joined)) {
    static const pw_registry_events events = {
        .version = PW_VERSION_REGISTRY_EVENTS,
        .global = on_global,
        .global_remove = on_global_remove,
    };
    registry_ = pw_core_get_registry(core, PW_VERSION_REGISTRY, 0);
    if (registry_)
        pw_registry_add_listener(registry_, &registry_listener_, &events, this);
}

StreamLinks::~StreamLinks() {
    for (auto& link : links_) {
        spa_hook_remove(&link->listener);
        pw_proxy_destroy(link->proxy);
    }
    if (registry_) {
        spa_hook_remove(&registry_listener_);
        pw_proxy_destroy(reinterpret_cast<pw_proxy*>(registry_));
    }
}

void StreamLinks::on_global(void* data, uint32_t id, uint32_t, const char* type, uint32_t,
                            const spa_dict* props) noexcept {
    auto* self = static_cast<StreamLinks*>(data);
    if (std::string_view(type) != PW_TYPE_INTERFACE_Link || !props)
        return;
    const char* output = spa_dict_lookup(props, PW_KEY_LINK_OUTPUT_NODE);
    if (!output || std::to_string(self->node_id_) != output)
        return;
    static const pw_link_events events = {
        .version = PW_VERSION_LINK_EVENTS,
        .info = on_link_info,
    };
    auto link = std::make_unique<Link>();
    link->owner = self;
    link->id = id;
    link->proxy = static_cast<pw_proxy*>(pw_registry_bind(self->registry_, id, type, PW_VERSION_LINK, 0));
    if (!link->proxy)
        return;
    pw_link_add_listener(reinterpret_cast<pw_link*>(link->proxy), &link->listener, &events, link.get());
    self->links_.push_back(std::move(link));
}

void StreamLinks::on_global_remove(void* data, uint32_t id) noexcept {
    auto* self = static_cast<StreamLinks*>(data);
    std::erase_if(self->links_, [id](const std::unique_ptr<Link>& link) {
        if (link->id != id)
            return false;
        spa_hook_remove(&link->listener);
        pw_proxy_destroy(link->proxy);
        return true;
    });
}

void StreamLinks::on_link_info(void* data, const pw_link_info* info) noexcept {
    auto* link = static_cast<Link*>(data);
    bool active = info->state == PW_LINK_STATE_ACTIVE;
    if (active && !link->active && link->owner->joined_)
        link->owner->joined_();
    link->active = active;
}

}  // namespace portal
