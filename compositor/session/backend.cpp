// Backend selection: the environment says where kiln runs (inside Wayland, inside X11, on a seat, or nowhere).
#include "compositor/session/backend.hpp"

#include "compositor/log.hpp"

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace kiln::compositor {
namespace {

bool env_set(const char* name)
{
    const char* value = std::getenv(name);
    return value && *value;
}

bool has_drm_card()
{
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/dev/dri", ec))
        if (entry.path().filename().string().starts_with("card"))
            return true;
    return false;
}

// A seat is there when a login session or libseat says so, or kiln runs on a VT.
bool on_a_seat()
{
    if (env_set("XDG_SESSION_ID") || env_set("XDG_VTNR") || env_set("LIBSEAT_BACKEND"))
        return true;
    const char* tty = ttyname(STDIN_FILENO);
    return tty && std::string_view(tty).starts_with("/dev/tty") && !std::string_view(tty).starts_with("/dev/ttyS");
}

}  // namespace

BackendChoice resolve_backend(BackendChoice requested)
{
    if (requested != BackendChoice::automatic)
        return requested;
    if (env_set("WAYLAND_DISPLAY") || env_set("WAYLAND_SOCKET"))
        return BackendChoice::wayland;
    if (env_set("DISPLAY"))
        return BackendChoice::x11;
    if (has_drm_card() && on_a_seat())
        return BackendChoice::drm;
    return BackendChoice::headless;
}

wlr_backend* create_backend(wl_display* display, BackendChoice choice, const Options& options, std::string& error)
{
    wlr_backend* backend = nullptr;
    switch (choice) {
    case BackendChoice::headless:
        backend = wlr_headless_backend_create(display);
        for (int32_t i = 0; backend && i < options.backend_outputs; ++i) {
            if (!wlr_headless_add_output(backend, static_cast<unsigned>(options.headless_width),
                                         static_cast<unsigned>(options.headless_height))) {
                wlr_backend_destroy(backend);
                backend = nullptr;
            }
        }
        // A keyboard, a pointer, a touchscreen and a drawing tablet that nothing drives (but --test-input's touch
        // and tablet), so clients see a seat with all three and a tablet, as on a laptop with a touchscreen.
        if (backend && (!wlr_headless_add_input_device(backend, WLR_INPUT_DEVICE_KEYBOARD) ||
                        !wlr_headless_add_input_device(backend, WLR_INPUT_DEVICE_POINTER) ||
                        !wlr_headless_add_input_device(backend, WLR_INPUT_DEVICE_TOUCH) ||
                        !wlr_headless_add_input_device(backend, WLR_INPUT_DEVICE_TABLET_TOOL))) {
            wlr_backend_destroy(backend);
            backend = nullptr;
        }
        if (!backend)
            error = "cannot create the headless backend";
        break;
    case BackendChoice::wayland:
        backend = wlr_wl_backend_create(display, nullptr);
        if (!backend)
            error = "cannot connect to the Wayland compositor at WAYLAND_DISPLAY";
        else
            for (int32_t i = 0; i < options.backend_outputs; ++i)
                wlr_wl_output_create(backend);  // before start this asks for one window each once the backend runs (and is null)
        break;
    case BackendChoice::x11:
        backend = wlr_x11_backend_create(display, nullptr);
        if (!backend)
            error = "cannot connect to the X server at DISPLAY";
        else
            for (int32_t i = 0; i < options.backend_outputs; ++i)
                wlr_x11_output_create(backend);  // likewise: one X window each once started
        break;
    case BackendChoice::drm:
        // wlroots opens the session through libseat and finds the GPUs; libinput joins when input devices exist.
        setenv("WLR_BACKENDS", std::filesystem::exists("/dev/input") ? "drm,libinput" : "drm", 1);
        backend = wlr_backend_autocreate(display);
        if (!backend)
            error = "cannot open a DRM session (libseat) or no KMS device was found";
        break;
    case BackendChoice::automatic:
        error = "backend must be resolved before creation";
        break;
    }
    return backend;
}

void change_vt(wlr_backend* backend, BackendChoice requested, int vt)
{
    wlr_session* session = backend ? wlr_backend_get_session(backend) : nullptr;
    if (!session) {
        log::error("no VT to switch to: the %s backend has no session", backend_name(resolve_backend(requested)));
        return;
    }
    if (!wlr_session_change_vt(session, static_cast<unsigned>(vt)))
        log::error("cannot switch to VT %d", vt);
}

}  // namespace kiln::compositor
