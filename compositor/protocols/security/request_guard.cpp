// wlroots 0.15 crashes any client can trigger, defused from kiln's request table (one protocol logger): libwayland calls loggers for each
// request after reading it and before invoking its handler, and reads the handler only at invoke time.
//
// - A wl_subsurface whose parent was destroyed keeps a NULL parent, and place_above/place_below dereference it.
//   Neither can name a sibling or parent any more, so the request is the client's protocol error (bad_surface); its
//   handler is kept off the subsurface by hiding the user data until the resource is destroyed.
// - zwp_virtual_keyboard_v1.keymap: wlroots maps `size` bytes of the fd and hands them to xkbcommon as a C string, so
//   a file shorter than `size` (SIGBUS on the pages past its end), one the client shrinks while it is read, or a
//   keymap with no NUL within it (read past the mapping) killed kiln. kiln copies the keymap with pread (client_file),
//   never mapping the client's file, and checks the copy; the request's fd is then made kiln's own sealed memfd of
//   the copy (dup3 onto the same fd number closes the client's file), so what wlroots maps cannot shrink. A keymap
//   kiln cannot take is the client's error (no_keymap, the protocol's only one), and the fd becomes /dev/null, which
//   cannot be mapped, so wlroots refuses it without reading. wlroots closes the fd either way.
// - zwp_input_method_v2.get_input_popup_surface on a wl_surface that already has another role: wlroots frees the
//   popup object but leaves it as the new resource's user data, and frees it again when the client goes (a use after
//   free the protocol fuzzer found under ASan). The client gets the role error and the input method's user data is
//   hidden for the request, so wlroots' handler returns before creating anything.
#include "compositor/protocols/security/request_guard.hpp"

#include "compositor/protocol_kit/client_file.hpp"
#include "input-method-unstable-v2-protocol.h"
#include "virtual-keyboard-unstable-v1-protocol.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace kiln::compositor {
namespace {

// The most keymap kiln copies: xkbcommon writes a keymap of four layouts in some 100 KiB; a client's file past this
// is refused before any of it is read.
constexpr size_t max_keymap_bytes = size_t{4} << 20;

// A copy of the keymap in `fd` that xkbcommon can read as a string of `size` bytes, or nullopt with `why`.
std::optional<std::vector<char>> keymap_copy(int fd, uint32_t size, std::string& why)
{
    std::string defect;
    auto bytes = copy_client_file(fd, size, max_keymap_bytes, defect);
    if (!bytes) {
        why = "a keymap that cannot be read: " + defect;
        return std::nullopt;
    }
    if (std::memchr(bytes->data(), 0, bytes->size()) == nullptr) {
        why = "a keymap with no NUL within its " + std::to_string(size) + " bytes";
        return std::nullopt;
    }
    return bytes;
}

}  // namespace

RequestGuard::RequestGuard(RequestHooks& hooks) : unmappable_(open("/dev/null", O_RDONLY | O_CLOEXEC))
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
    add(zwp_virtual_keyboard_v1_interface, "keymap", [this](Message message) { take_keymap(message); });
    add(zwp_input_method_v2_interface, "get_input_popup_surface", [this, data](Message message) {
        if (data(message) != nullptr)
            refuse_input_popup_role(message.resource, &message);
    });
}

RequestGuard::~RequestGuard()
{
    hooks_.clear();
    if (unmappable_ >= 0)
        close(unmappable_);
    for (auto& [resource, hidden] : hidden_) {
        wl_list_remove(&hidden->resource_destroyed.link);
        if (hidden->data)
            wl_list_remove(&hidden->data_destroyed.link);
        wl_resource_set_user_data(resource, hidden->data);
    }
}

void RequestGuard::take_keymap(const wl_protocol_logger_message& message)
{
    const int fd = message.arguments[1].h;
    std::string why;
    int replacement = -1;
    if (auto bytes = keymap_copy(fd, message.arguments[2].u, why)) {
        std::string failure;
        replacement = sealed_memfd("kiln-virtual-keyboard-keymap", *bytes, failure);
        if (replacement < 0)
            why = "kiln cannot keep a copy of the keymap (" + failure + ")";
    }
    if (replacement < 0)
        wl_resource_post_error(message.resource, 0 /* no_keymap */, "%s", why.c_str());
    // Onto the request's fd number, closing the client's file there: the one kiln holds open from the start when
    // refusing, so a kiln out of fds still keeps wlroots off the client's file.
    const int source = replacement >= 0 ? replacement : unmappable_;
    if (source < 0 || dup3(source, fd, O_CLOEXEC) < 0)
        close(fd);  // (no /dev/null since start-up) then wlroots' mmap finds the number closed
    if (replacement >= 0)
        close(replacement);  // wlroots holds it under the request's fd number now
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
