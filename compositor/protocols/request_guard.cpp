// wlroots 0.15 crashes any client can trigger, defused from a protocol logger: libwayland calls loggers for each
// request after reading it and before invoking its handler, and reads the handler only at invoke time.
//
// - An xdg_toplevel whose wl_surface was destroyed is inert (user data NULL), but every handler but destroy
//   dereferences that NULL (wlroots issue #2643). Its implementation is swapped for no-ops: an inert object ignores
//   requests, as libwayland objects do.
// - A wl_subsurface whose parent was destroyed keeps a NULL parent, and place_above/place_below dereference it.
//   Neither can name a sibling or parent any more, so the request is the client's protocol error (bad_surface); its
//   handler is kept off the subsurface by hiding the user data until the resource is destroyed.
// - xdg_surface.get_popup accepts the surface itself (or a popup below it) as the parent, and destroying such a popup
//   recurses without end. The client gets invalid_popup_parent, and the request's parent argument (nullable) is
//   cleared before wlroots reads it.
// - zwp_virtual_keyboard_v1.keymap: wlroots maps `size` bytes of the fd and hands them to xkbcommon as a C string, so
//   a file shorter than `size` (SIGBUS on the pages past its end) or a keymap with no NUL within it (read past the
//   mapping) kills kiln. Such a keymap is the client's error (no_keymap, the protocol's only one), and the fd in the
//   request is swapped for /dev/null, which cannot be mapped, so wlroots refuses it without reading.
// - zwlr_layer_surface_v1.get_popup dereferences an inert popup's NULL xdg_surface, and links a popup that already
//   has a parent (or asked twice) into a second list. The client gets invalid_surface_state and the layer surface's
//   user data is hidden, as for the subsurface, so wlroots' handler returns early.
// - zwp_input_method_v2.get_input_popup_surface on a wl_surface that already has another role: wlroots frees the
//   popup object but leaves it as the new resource's user data, and frees it again when the client goes (a use after
//   free the protocol fuzzer found under ASan). The client gets the role error and the input method's user data is
//   hidden for the request, so wlroots' handler returns before creating anything.
#include "compositor/protocols/request_guard.hpp"

#include "wlr-layer-shell-unstable-v1-protocol.h"
#include "xdg-shell-protocol.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace kiln::compositor {
namespace {

const struct xdg_toplevel_interface inert_toplevel = {
    .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
    .set_parent = [](wl_client*, wl_resource*, wl_resource*) noexcept {},
    .set_title = [](wl_client*, wl_resource*, const char*) noexcept {},
    .set_app_id = [](wl_client*, wl_resource*, const char*) noexcept {},
    .show_window_menu = [](wl_client*, wl_resource*, wl_resource*, uint32_t, int32_t, int32_t) noexcept {},
    .move = [](wl_client*, wl_resource*, wl_resource*, uint32_t) noexcept {},
    .resize = [](wl_client*, wl_resource*, wl_resource*, uint32_t, uint32_t) noexcept {},
    .set_max_size = [](wl_client*, wl_resource*, int32_t, int32_t) noexcept {},
    .set_min_size = [](wl_client*, wl_resource*, int32_t, int32_t) noexcept {},
    .set_maximized = [](wl_client*, wl_resource*) noexcept {},
    .unset_maximized = [](wl_client*, wl_resource*) noexcept {},
    .set_fullscreen = [](wl_client*, wl_resource*, wl_resource*) noexcept {},
    .unset_fullscreen = [](wl_client*, wl_resource*) noexcept {},
    .set_minimized = [](wl_client*, wl_resource*) noexcept {},
};

bool is(wl_resource* resource, const char* interface)
{
    return std::strcmp(wl_resource_get_class(resource), interface) == 0;
}

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

RequestGuard::RequestGuard(wl_display* display) : logger_(wl_display_add_protocol_logger(display, on_message, this)) {}

RequestGuard::~RequestGuard()
{
    for (auto& [resource, hidden] : hidden_) {
        wl_list_remove(&hidden->resource_destroyed.link);
        if (hidden->data)
            wl_list_remove(&hidden->data_destroyed.link);
        wl_resource_set_user_data(resource, hidden->data);
    }
    if (logger_)
        wl_protocol_logger_destroy(logger_);
}

void RequestGuard::on_message(void* guard, wl_protocol_logger_type type,
                              const wl_protocol_logger_message* message) noexcept
{
    if (type != WL_PROTOCOL_LOGGER_REQUEST)
        return;
    wl_resource* resource = message->resource;
    void* data = wl_resource_get_user_data(resource);
    if (data == nullptr && is(resource, xdg_toplevel_interface.name)) {
        // No destroy callback: wlroots' own does nothing for an inert toplevel, and nothing else is attached.
        wl_resource_set_implementation(resource, &inert_toplevel, nullptr, nullptr);
    } else if (data != nullptr &&
               (message->message_opcode == WL_SUBSURFACE_PLACE_ABOVE ||
                message->message_opcode == WL_SUBSURFACE_PLACE_BELOW) &&
               is(resource, wl_subsurface_interface.name) && static_cast<wlr_subsurface*>(data)->parent == nullptr) {
        static_cast<RequestGuard*>(guard)->refuse_orphan_subsurface_restack(resource, message->message->name);
    } else if (data != nullptr && std::strcmp(message->message->name, "get_popup") == 0 &&
               is(resource, xdg_surface_interface.name)) {
        refuse_popup_cycle(static_cast<wlr_xdg_surface*>(data), message);
    } else if (message->message_opcode == 0 && is(resource, "zwp_virtual_keyboard_v1")) {
        refuse_bad_keymap(resource, message);
    } else if (data != nullptr && std::strcmp(message->message->name, "get_popup") == 0 &&
               is(resource, zwlr_layer_surface_v1_interface.name)) {
        static_cast<RequestGuard*>(guard)->refuse_layer_popup(resource, message);
    } else if (data != nullptr && std::strcmp(message->message->name, "get_input_popup_surface") == 0 &&
               is(resource, "zwp_input_method_v2")) {
        static_cast<RequestGuard*>(guard)->refuse_input_popup_role(resource, message);
    }
}

void RequestGuard::refuse_layer_popup(wl_resource* resource, const wl_protocol_logger_message* message)
{
    auto* popup_resource = reinterpret_cast<wl_resource*>(message->arguments[0].o);
    wlr_xdg_surface* popup = popup_resource ? wlr_xdg_surface_from_popup_resource(popup_resource) : nullptr;
    if (popup && popup->role == WLR_XDG_SURFACE_ROLE_POPUP && popup->popup->parent == nullptr)
        return;
    wl_resource_post_error(resource, ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SURFACE_STATE,
                           "get_popup: the xdg_popup is gone or already has a parent");
    auto* layer_surface = static_cast<wlr_layer_surface_v1*>(wl_resource_get_user_data(resource));
    hide_until_destroyed(resource, &layer_surface->events.destroy);
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

void RequestGuard::refuse_popup_cycle(wlr_xdg_surface* surface, const wl_protocol_logger_message* message)
{
    // get_popup(id, parent, positioner): the logger sees the very arguments the handler will get.
    auto* arguments = const_cast<wl_argument*>(message->arguments);
    auto* parent_resource = reinterpret_cast<wl_resource*>(arguments[1].o);
    wlr_xdg_surface* ancestor = parent_resource ? wlr_xdg_surface_from_resource(parent_resource) : nullptr;
    // Chains are acyclic (this check keeps them so); the bound only guards against a wlroots surprise. A popup's
    // parent is a wlr_surface, which may have no xdg role yet, so surfaces are compared too.
    for (int depth = 0; ancestor && depth < 1000; ++depth) {
        const bool cycle = ancestor == surface || (ancestor->role == WLR_XDG_SURFACE_ROLE_POPUP &&
                                                   ancestor->popup->parent == surface->surface);
        if (cycle) {
            wl_resource_post_error(surface->client->resource, XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT,
                                   "get_popup: xdg_surface@%u would be its own ancestor",
                                   wl_resource_get_id(surface->resource));
            arguments[1].o = nullptr;
            return;
        }
        if (ancestor->role != WLR_XDG_SURFACE_ROLE_POPUP || !ancestor->popup->parent ||
            !wlr_surface_is_xdg_surface(ancestor->popup->parent))
            return;
        ancestor = wlr_xdg_surface_from_wlr_surface(ancestor->popup->parent);
    }
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
