// ClientWindow: what every demo client shares: the connection, the globals, one xdg toplevel and its frame loop.
#pragma once

#include "linux-dmabuf-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "wayland-drm-client-protocol.h"
#include "xdg-decoration-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

#include <wayland-client.h>

#include <cstdint>
#include <functional>
#include <string>

namespace kiln::clients {

struct WindowOptions {
    int32_t width = 400;
    int32_t height = 300;
    uint32_t color = 0x3366cc;  // RRGGBB of the static part
    int64_t frames = -1;        // -1: run until closed
    bool fullscreen = false;
    bool stay = false;          // after `frames` frames, keep the window shown (drawing nothing) until killed
    bool server_decoration = false;  // ask for server-side decorations (xdg-decoration), and say which mode came
    std::string title = "kiln demo";
};

// Parses the options every demo shares (--size, --color, --frames, --fullscreen, --stay, --server-decoration); extra flags go to `extra`, which
// returns false for an unknown flag. Prints usage and returns false on a bad flag.
bool parse_window_options(int argc, char** argv, WindowOptions& options, const char* usage,
                          const std::function<bool(const std::string& flag, const char* value, bool& used_value)>& extra);

class ClientWindow {
public:
    explicit ClientWindow(const WindowOptions& options);
    ~ClientWindow();
    ClientWindow(const ClientWindow&) = delete;
    ClientWindow& operator=(const ClientWindow&) = delete;

    // Connects, binds the globals and maps the window; false (with `error`) when that fails.
    bool connect(std::string& error);
    // Runs until `frames` frames were presented, the window was closed or the connection failed. `draw` is called
    // once per frame with the frame index and must attach, damage and commit. Returns the process exit status.
    int run(const std::function<bool(uint64_t frame)>& draw);

    wl_display* display() const { return display_; }
    wl_surface* surface() const { return surface_; }
    wl_compositor* compositor() const { return compositor_; }
    wl_shm* shm() const { return shm_; }
    zwp_linux_dmabuf_v1* dmabuf() const { return dmabuf_; }
    wl_drm* drm() const { return drm_; }
    // wp_presentation when the compositor offers it, and the clock its timestamps are on (a clockid_t).
    wp_presentation* presentation() const { return presentation_; }
    uint32_t presentation_clock() const { return presentation_clock_; }
    int32_t width() const { return width_; }
    int32_t height() const { return height_; }
    const WindowOptions& options() const { return options_; }

private:
    static const wl_registry_listener registry_listener;
    static const xdg_wm_base_listener wm_base_listener;
    static const struct xdg_surface_listener surface_listener;
    static const xdg_toplevel_listener toplevel_listener;
    static const wl_callback_listener frame_listener;
    static const wp_presentation_listener presentation_listener;
    static const zxdg_toplevel_decoration_v1_listener decoration_listener;

    WindowOptions options_;
    wl_display* display_ = nullptr;
    wl_registry* registry_ = nullptr;
    wl_compositor* compositor_ = nullptr;
    wl_shm* shm_ = nullptr;
    xdg_wm_base* wm_base_ = nullptr;
    zwp_linux_dmabuf_v1* dmabuf_ = nullptr;
    wl_drm* drm_ = nullptr;
    wp_presentation* presentation_ = nullptr;
    uint32_t presentation_clock_ = 0;
    wl_surface* surface_ = nullptr;
    xdg_surface* xdg_surface_ = nullptr;
    xdg_toplevel* toplevel_ = nullptr;
    zxdg_decoration_manager_v1* decoration_manager_ = nullptr;
    zxdg_toplevel_decoration_v1* decoration_ = nullptr;
    wl_callback* frame_callback_ = nullptr;
    int32_t width_ = 0;
    int32_t height_ = 0;
    bool configured_ = false;
    bool closed_ = false;
    bool frame_due_ = true;
};

}  // namespace kiln::clients
