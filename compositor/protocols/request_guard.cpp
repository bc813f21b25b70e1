// wlroots 0.15 crashes any client can trigger, defused from kiln's request table (one protocol logger): libwayland calls loggers for each
// request after reading it and before invoking its handler, and reads the handler only at invoke time.
//
// - A wl_subsurface whose parent was destroyed keeps a NULL parent, and place_above/place_below dereference it.
//   Neither can name a sibling or parent any more, so the request is the client's protocol error (bad_surface); its
//   handler is kept off the subsurface by hiding the user data until the resource is destroyed.
// - zwp_virtual_keyboard_v1.keymap: wlroots maps `size` bytes of the fd and hands them to xkbcommon as a C string, so
//   a file shorter than `size` (SIGBUS on the pages past its end) or a keymap with no NUL within it (read past the
//   mapping) kills kiln. Such a keymap is the client's error (no_keymap, the protocol's only one), and the fd in the
//   request is swapped for /dev/null, which cannot be mapped, so wlroots refuses it without reading.
// - zwp_input_method_v2.get_input_popup_surface on a wl_surface that already has another role: wlroots frees the
//   popup object but leaves it as the new resource's user data, and frees it again when the client goes (a use after
//   free the protocol fuzzer found under ASan). The client gets the role error and the input method's user data is
//   hidden for the request, so wlroots' handler returns before creating anything.
#include "compositor/protocols/request_guard.hpp"

#include "input-method-unstable-v2-protocol.h"
#include "virtual-keyboard-unstable-v1-protocol.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace kiln::compositor {
namespace {

// Why a virtual keyboard's keymap fd cannot be mapped and read as a string of `size` bytes, or empty if it can.
std::string keymap_problem(int fd, uint32_t size)
{
    struct stat st{};
    if (size == 0)
        return "an empty keymap";
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return "a keymap fd that is not a file";
    if (static_cast<uint64_t>(st.st_size) < size)
        return "a keymap of " + std::to_string(size) + " bytes in a file of " + std::to_string(st.st_size);
    void* data = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED)
        return "a keymap fd that cannot be mapped";
    const bool terminated = std::memchr(data, 0, size) != nullptr;
    munmap(data, size);
    return terminated ? std::string() : "a keymap with no NUL within its " + std::to_string(size) + " bytes";
}

void refuse_bad_keymap(wl_resource* resource, const wl_protocol_logger_message* message)
{
    const int fd = message->arguments[1].h;
    const std::string problem = keymap_problem(fd, message->arguments[2].u);
    if (problem.empty())
        return;
    wl_resource_post_error(resource, 0 /* no_keymap */, "%s", problem.c_str());
    const int unmappable = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (unmappable >= 0) {
        dup2(unmappable, fd);
        close(unmappable);
    }
}

}  // namespace

RequestGuard::RequestGuard(RequestHooks& hooks)
{
    using Message = const wl_protocol_logger_message&;
    auto data = [](Message message) { return wl_resource_get_user_data(message.resource); };
    auto add = [&](const wl_interface& interface, const char* request, RequestTable::Handler handler) {
        hooks_.push_back(hooks.add(interface, request, HookOrder::request_guard, std::move(handler)));
    };
    for (const char* restack : {"place_above", "place_below"})
        add(wl_subsurface_interface, restack, [this, data](Message message) {
            if (data(message) != nullptr && static_cast<wlr_subsurface*>(data(message))->parent == nullptr)
                refuse_orphan_subsurface_restack(message.resource, message.message->name);
        });
    add(zwp_virtual_keyboard_v1_interface, "keymap", [](Message message) { refuse_bad_keymap(message.resource, &message); });
    add(zwp_input_method_v2_interface, "get_input_popup_surface", [this, data](Message message) {
        if (data(message) != nullptr)
            refuse_input_popup_role(message.resource, &message);
    });
}

RequestGuard::~RequestGuard()
{
    hooks_.clear();
    for (auto& [resource, hidden] : hidden_) {
        wl_list_remove(&hidden->resource_destroyed.link);
        if (hidden->data)
            wl_list_remove(&hidden->data_destroyed.link);
        wl_resource_set_user_data(resource, hidden->data);
    }
}

void RequestGuard::refuse_input_popup_role(wl_resource* resource, const wl_protocol_logger_message* message)
{
    auto* surface_resource = reinterpret_cast<wl_resource*>(message->arguments[1].o);
    wlr_surface* surface = surface_resource ? wlr_surface_from_resource(surface_resource) : nullptr;
    // What wlr_surface_set_role refuses: another role, or this role while an earlier role object still exists.
    if (!surface || !surface->role ||
        (std::strcmp(surface->role->name, "zwp_input_popup_surface_v2") == 0 && surface->role_data == nullptr))
        return;
    wl_resource_post_error(resource, 0 /* zwp_input_method_v2.error.role */,
                           "get_input_popup_surface: wl_surface@%u already has the role %s",
                           wl_resource_get_id(surface_resource), surface->role->name);
    auto* input_method = static_cast<wlr_input_method_v2*>(wl_resource_get_user_data(resource));
    hide_until_destroyed(resource, &input_method->events.destroy);
}

void RequestGuard::refuse_orphan_subsurface_restack(wl_resource* resource, const char* request)
{
    wl_resource_post_error(resource, WL_SUBSURFACE_ERROR_BAD_SURFACE, "%s: the parent surface is gone", request);
    auto* subsurface = static_cast<wlr_subsurface*>(wl_resource_get_user_data(resource));
    hide_until_destroyed(resource, &subsurface->events.destroy);
}

void RequestGuard::hide_until_destroyed(wl_resource* resource, wl_signal* data_destroyed)
{
    if (hidden_.contains(resource))
        return;
    auto hidden = std::make_unique<Hidden>();
    hidden->guard = this;
    hidden->data = wl_resource_get_user_data(resource);
    hidden->resource_destroyed.notify = give_back;
    wl_resource_add_destroy_listener(resource, &hidden->resource_destroyed);
    // The wl_surface may go first (clients are torn down in id order): wlroots then frees the object.
    hidden->data_destroyed.notify = forget;
    wl_signal_add(data_destroyed, &hidden->data_destroyed);
    // wlroots' handlers return early on NULL user data (what they do for an inert object).
    wl_resource_set_user_data(resource, nullptr);
    hidden_[resource] = std::move(hidden);
}

void RequestGuard::forget(wl_listener* listener, void*) noexcept
{
    Hidden* hidden = wl_container_of(listener, hidden, data_destroyed);
    wl_list_remove(&hidden->data_destroyed.link);
    hidden->data = nullptr;
}

void RequestGuard::give_back(wl_listener* listener, void* resource) noexcept
{
    Hidden* hidden = wl_container_of(listener, hidden, resource_destroyed);
    auto* destroyed = static_cast<wl_resource*>(resource);
    // Destroy listeners run before the resource's destroy callback, so wlroots frees its object as usual.
    if (hidden->data)
        wl_list_remove(&hidden->data_destroyed.link);
    wl_resource_set_user_data(destroyed, hidden->data);
    hidden->guard->hidden_.erase(destroyed);  // frees `hidden`; libwayland no longer touches the listener
}

}  // namespace kiln::compositor
