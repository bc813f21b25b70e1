// RequestGuard: defuses client requests that wlroots 0.15 crashes on, before libwayland dispatches them.
#pragma once

#include "compositor/protocol_kit/request_hooks.hpp"
#include "compositor/wlr.hpp"

#include <map>
#include <memory>
#include <vector>

namespace kiln::compositor {

class RequestGuard {
public:
    // Watches the requests it defuses through `hooks`; must be destroyed before them and the display.
    explicit RequestGuard(RequestHooks& hooks);
    ~RequestGuard();
    RequestGuard(const RequestGuard&) = delete;
    RequestGuard& operator=(const RequestGuard&) = delete;

private:
    // A resource (wl_subsurface, zwp_input_method_v2) whose user data is hidden from wlroots after a refused
    // request, given back when the resource is destroyed (before wlroots' own destroy callback runs), unless wlroots
    // freed the object first.
    struct Hidden {
        wl_listener resource_destroyed{};
        wl_listener data_destroyed{};
        RequestGuard* guard = nullptr;
        void* data = nullptr;
    };

    // The keymap's fd of zwp_virtual_keyboard_v1.keymap made kiln's sealed copy of it, or the client's error.
    void take_keymap(const wl_protocol_logger_message& message);
    void refuse_orphan_subsurface_restack(wl_resource* resource, const char* request);
    void refuse_input_popup_role(wl_resource* resource, const wl_protocol_logger_message* message);
    // Hides `resource`'s user data from wlroots' handlers until the resource goes; `data_destroyed` fires when
    // wlroots frees the object the data points at.
    void hide_until_destroyed(wl_resource* resource, wl_signal* data_destroyed);
    static void give_back(wl_listener* listener, void* resource) noexcept;
    static void forget(wl_listener* listener, void* subsurface) noexcept;

    std::map<wl_resource*, std::unique_ptr<Hidden>> hidden_;
    int unmappable_ = -1;  // /dev/null, which mmap refuses: what a refused keymap's fd becomes
    std::vector<RequestTable::Hook> hooks_;
};

}  // namespace kiln::compositor
