// WaylandWindows: follows ext-foreign-toplevel-list's handles (title, app_id, identifier, closed) and picks one.
#include "wayland_windows.hpp"

#include <algorithm>

#include <wayland-client.h>

#include "ext-foreign-toplevel-list-v1-client-protocol.h"

namespace portal {

// Each handle's listener data is its Window; `closed` reaches the list through the Window's owner.
struct WindowEvents {
    static void closed(void* data, ext_foreign_toplevel_handle_v1* handle) noexcept {
        static_cast<Window*>(data)->owner->forget(handle);
    }
    static void done(void* data, ext_foreign_toplevel_handle_v1*) noexcept { static_cast<Window*>(data)->done = true; }
    static void title(void* data, ext_foreign_toplevel_handle_v1*, const char* title) noexcept {
        static_cast<Window*>(data)->title = title;
    }
    static void app_id(void* data, ext_foreign_toplevel_handle_v1*, const char* app_id) noexcept {
        static_cast<Window*>(data)->app_id = app_id;
    }
    static void identifier(void* data, ext_foreign_toplevel_handle_v1*, const char* identifier) noexcept {
        static_cast<Window*>(data)->identifier = identifier;
    }
};

Window::~Window() {
    if (handle)
        ext_foreign_toplevel_handle_v1_destroy(handle);
}

WaylandWindows::~WaylandWindows() { release(); }

void WaylandWindows::release() {
    windows_.clear();
    if (list_)
        ext_foreign_toplevel_list_v1_destroy(list_);
    list_ = nullptr;
}

void WaylandWindows::bind(wl_registry* registry, uint32_t name) {
    if (list_)
        return;
    list_ = static_cast<ext_foreign_toplevel_list_v1*>(
        wl_registry_bind(registry, name, &ext_foreign_toplevel_list_v1_interface, 1));
    static const ext_foreign_toplevel_list_v1_listener listener = {on_toplevel, on_finished};
    ext_foreign_toplevel_list_v1_add_listener(list_, &listener, this);
}

void WaylandWindows::on_toplevel(void* data, ext_foreign_toplevel_list_v1*,
                                 ext_foreign_toplevel_handle_v1* handle) noexcept {
    auto* self = static_cast<WaylandWindows*>(data);
    auto window = std::make_unique<Window>();
    window->handle = handle;
    window->owner = self;
    window->mapped = ++self->announced_;
    static const ext_foreign_toplevel_handle_v1_listener listener = {
        WindowEvents::closed, WindowEvents::done, WindowEvents::title, WindowEvents::app_id,
        WindowEvents::identifier};
    ext_foreign_toplevel_handle_v1_add_listener(handle, &listener, window.get());
    self->windows_.push_back(std::move(window));
}

void WaylandWindows::on_finished(void* data, ext_foreign_toplevel_list_v1*) noexcept {
    auto* self = static_cast<WaylandWindows*>(data);
    // kiln stopped listing: the windows we know can no longer be followed.
    self->windows_.clear();
}

void WaylandWindows::forget(const ext_foreign_toplevel_handle_v1* handle) {
    std::erase_if(windows_, [handle](const auto& window) { return window->handle == handle; });
}

const Window* WaylandWindows::choose(const std::string& match) const {
    const Window* newest = nullptr;
    const Window* matched = nullptr;
    for (const auto& window : windows_) {
        if (!window->done)
            continue;
        if (!newest || window->mapped > newest->mapped)
            newest = window.get();
        if (!match.empty() && (window->app_id == match || window->title == match) &&
            (!matched || window->mapped > matched->mapped))
            matched = window.get();
    }
    return matched ? matched : newest;
}

const Window* WaylandWindows::find(const std::string& app_id, const std::string& title) const {
    const Window* found = nullptr;
    for (const auto& window : windows_)
        if (window->done && window->app_id == app_id && window->title == title &&
            (!found || window->mapped > found->mapped))
            found = window.get();
    return found;
}

const Window* WaylandWindows::identified(const std::string& identifier) const {
    for (const auto& window : windows_)
        if (window->done && !identifier.empty() && window->identifier == identifier)
            return window.get();
    return nullptr;
}

std::vector<const Window*> WaylandWindows::all() const {
    std::vector<const Window*> all;
    for (const auto& window : windows_)
        if (window->done)
            all.push_back(window.get());
    std::sort(all.begin(), all.end(), [](const Window* a, const Window* b) { return a->mapped < b->mapped; });
    return all;
}

}  // namespace portal
