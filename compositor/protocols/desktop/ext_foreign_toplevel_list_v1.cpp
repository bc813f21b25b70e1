// ext_foreign_toplevel_list_v1 and ext_foreign_toplevel_handle_v1: lists, and each window's handles from map to unmap.
#include "compositor/protocols/desktop/ext_foreign_toplevel_list_v1.hpp"

#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/toplevels.hpp"

#include "ext-foreign-toplevel-list-v1-protocol.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

namespace kiln::compositor {
namespace {

const struct ext_foreign_toplevel_handle_v1_interface handle_requests = {
    .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
};

}  // namespace

// One window kiln manages; while it is mapped it has a handle per list and an identifier.
class ExtForeignToplevelListV1::Window {
public:
    Window(ExtForeignToplevelListV1& owner, Toplevel& toplevel) : owner_(owner), toplevel_(toplevel)
    {
        map_.connect(&toplevel.events.map, [this](void*) { show(); });
        unmap_.connect(&toplevel.events.unmap, [this](void*) { hide(); });
        title_.connect(&toplevel.events.title, [this](void*) {
            for (wl_resource* handle : handles_)
                send_title(handle);
        });
        if (toplevel.mapped())
            show();
    }
    ~Window() { hide(); }

    Toplevel& toplevel() const { return toplevel_; }
    bool shown() const { return !identifier_.empty(); }
    const std::string& identifier() const { return identifier_; }

    void add_handle(wl_resource* list)
    {
        wl_resource* handle = wl_resource_create(wl_resource_get_client(list),
                                                 &ext_foreign_toplevel_handle_v1_interface,
                                                 wl_resource_get_version(list), 0);
        if (!handle) {
            wl_resource_post_no_memory(list);
            return;
        }
        wl_resource_set_implementation(handle, &handle_requests, this, [](wl_resource* resource) noexcept {
            if (auto* window = static_cast<Window*>(wl_resource_get_user_data(resource)))
                window->handles_.remove(resource);
        });
        handles_.push_back(handle);
        ext_foreign_toplevel_list_v1_send_toplevel(list, handle);
        ext_foreign_toplevel_handle_v1_send_identifier(handle, identifier_.c_str());
        send_title(handle);
    }

private:
    void show()
    {
        if (shown())
            return;
        char id[64];
        std::snprintf(id, sizeof(id), "%s-%llu", owner_.id_prefix_.c_str(),
                      static_cast<unsigned long long>(owner_.next_id_++));
        identifier_ = id;
        for (wl_resource* list : owner_.lists_)
            add_handle(list);
    }

    void hide()
    {
        for (wl_resource* handle : handles_) {
            ext_foreign_toplevel_handle_v1_send_closed(handle);
            wl_resource_set_user_data(handle, nullptr);  // inert: only destroy remains
        }
        handles_.clear();
        identifier_.clear();
    }

    void send_title(wl_resource* handle)
    {
        const char* title = toplevel_.title();
        const char* app_id = toplevel_.app_id();
        ext_foreign_toplevel_handle_v1_send_title(handle, title ? title : "");
        ext_foreign_toplevel_handle_v1_send_app_id(handle, app_id ? app_id : "");
        ext_foreign_toplevel_handle_v1_send_done(handle);
    }

    ExtForeignToplevelListV1& owner_;
    Toplevel& toplevel_;
    std::string identifier_;  // empty while unmapped
    IndexedList<wl_resource*> handles_;
    wl::Listener map_;
    wl::Listener unmap_;
    wl::Listener title_;
};

const void* ExtForeignToplevelListV1::WindowKey::operator()(const std::unique_ptr<Window>& window) const
{
    return &window->toplevel();
}

ExtForeignToplevelListV1::ExtForeignToplevelListV1(wl_display* display, Toplevels& toplevels)
    : global_(wl_global_create(display, &ext_foreign_toplevel_list_v1_interface, 1, this, bind))
{
    std::random_device random;
    char prefix[32];
    std::snprintf(prefix, sizeof(prefix), "%08x%08x", random(), random());
    id_prefix_ = prefix;
    add_.connect(&toplevels.events.add, [this](void* data) {
        windows_.push_back(std::make_unique<Window>(*this, *static_cast<Toplevel*>(data)));
    });
    remove_.connect(&toplevels.events.remove, [this](void* data) {
        auto* toplevel = static_cast<Toplevel*>(data);
        windows_.erase(toplevel);
    });
}

Toplevel* ExtForeignToplevelListV1::toplevel_of(wl_resource* handle)
{
    if (!handle || !wl_resource_instance_of(handle, &ext_foreign_toplevel_handle_v1_interface, &handle_requests))
        return nullptr;
    auto* window = static_cast<Window*>(wl_resource_get_user_data(handle));
    return window ? &window->toplevel() : nullptr;
}

std::string ExtForeignToplevelListV1::identifier_of(const Toplevel& toplevel) const
{
    for (const auto& window : windows_)
        if (&window->toplevel() == &toplevel)
            return window->identifier();
    return {};
}

ExtForeignToplevelListV1::~ExtForeignToplevelListV1()
{
    windows_.clear();
    for (wl_resource* list : lists_)
        wl_resource_set_user_data(list, nullptr);
    if (global_)
        wl_global_destroy(global_);
}

void ExtForeignToplevelListV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* list =
        wl_resource_create(client, &ext_foreign_toplevel_list_v1_interface, static_cast<int>(version), id);
    if (!list) {
        wl_client_post_no_memory(client);
        return;
    }
    auto* self = static_cast<ExtForeignToplevelListV1*>(data);
    static const struct ext_foreign_toplevel_list_v1_interface requests = {
        .stop = [](wl_client*, wl_resource* list) noexcept {
            auto* owner = static_cast<ExtForeignToplevelListV1*>(wl_resource_get_user_data(list));
            if (!owner)
                return;  // stopped already
            owner->lists_.remove(list);
            wl_resource_set_user_data(list, nullptr);
            ext_foreign_toplevel_list_v1_send_finished(list);
        },
        .destroy = [](wl_client*, wl_resource* list) noexcept { wl_resource_destroy(list); },
    };
    wl_resource_set_implementation(list, &requests, self, [](wl_resource* list) noexcept {
        if (auto* owner = static_cast<ExtForeignToplevelListV1*>(wl_resource_get_user_data(list)))
            owner->lists_.remove(list);
    });
    self->lists_.push_back(list);
    for (const auto& window : self->windows_)
        if (window->shown())
            window->add_handle(list);
}

}  // namespace kiln::compositor
