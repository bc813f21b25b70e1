// The demo clients' shared window: registry, xdg-shell configure handshake and a frame-callback-paced loop.
#include "clients/client_window.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kiln::clients {

bool parse_window_options(int argc, char** argv, WindowOptions& options, const char* usage,
                          const std::function<bool(const std::string&, const char*, bool&)>& extra)
{
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        auto bad = [&](const char* why) {
            std::fprintf(stderr, "%s: %s: %s\n%s", argv[0], flag.c_str(), why, usage);
            return false;
        };
        if (flag == "--help" || flag == "-h") {
            std::fputs(usage, stdout);
            std::exit(0);
        } else if (flag == "--size") {
            int w = 0;
            int h = 0;
            if (!value || std::sscanf(value, "%dx%d", &w, &h) != 2 || w < 1 || h < 1 || w > 8192 || h > 8192)
                return bad("needs WxH");
            options.width = w;
            options.height = h;
            ++i;
        } else if (flag == "--color") {
            char* end = nullptr;
            if (!value || std::strlen(value) != 6)
                return bad("needs RRGGBB");
            options.color = static_cast<uint32_t>(std::strtoul(value, &end, 16));
            if (*end)
                return bad("needs RRGGBB");
            ++i;
        } else if (flag == "--frames") {
            char* end = nullptr;
            if (!value)
                return bad("needs a count");
            options.frames = std::strtoll(value, &end, 10);
            if (*end || options.frames < 1)
                return bad("needs a positive count");
            ++i;
        } else if (flag == "--fullscreen") {
            options.fullscreen = true;
        } else if (flag == "--stay") {
            options.stay = true;
        } else if (flag == "--server-decoration") {
            options.server_decoration = true;
        } else {
            bool used_value = false;
            if (!extra || !extra(flag, value, used_value))
                return bad("unknown option");
            if (used_value)
                ++i;
        }
    }
    return true;
}

const wl_registry_listener ClientWindow::registry_listener = {
    [](void* data, wl_registry* registry, uint32_t name, const char* interface, uint32_t version) {
        auto* self = static_cast<ClientWindow*>(data);
        const std::string_view iface = interface;
        if (iface == wl_compositor_interface.name)
            self->compositor_ = static_cast<wl_compositor*>(
                wl_registry_bind(registry, name, &wl_compositor_interface, std::min(version, 4u)));
        else if (iface == wl_shm_interface.name)
            self->shm_ = static_cast<wl_shm*>(wl_registry_bind(registry, name, &wl_shm_interface, 1));
        else if (iface == xdg_wm_base_interface.name)
            self->wm_base_ = static_cast<xdg_wm_base*>(wl_registry_bind(registry, name, &xdg_wm_base_interface, 1));
        else if (iface == zwp_linux_dmabuf_v1_interface.name && version >= 2)
            self->dmabuf_ = static_cast<zwp_linux_dmabuf_v1*>(
                wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface, std::min(version, 3u)));
        else if (iface == zxdg_decoration_manager_v1_interface.name)
            self->decoration_manager_ = static_cast<zxdg_decoration_manager_v1*>(
                wl_registry_bind(registry, name, &zxdg_decoration_manager_v1_interface, 1));
        else if (iface == wl_drm_interface.name && version >= 2)
            self->drm_ = static_cast<wl_drm*>(wl_registry_bind(registry, name, &wl_drm_interface, 2));
        else if (iface == wp_presentation_interface.name) {
            // The listener goes on at once: clock_id is sent right after the bind.
            self->presentation_ = static_cast<wp_presentation*>(
                wl_registry_bind(registry, name, &wp_presentation_interface, 1));
            wp_presentation_add_listener(self->presentation_, &presentation_listener, self);
        }
    },
    [](void*, wl_registry*, uint32_t) {},
};

const zxdg_toplevel_decoration_v1_listener ClientWindow::decoration_listener = {
    [](void*, zxdg_toplevel_decoration_v1*, uint32_t mode) {
        std::printf("decoration mode: %s\n",
                    mode == ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE ? "server-side" : "client-side");
        std::fflush(stdout);
    },
};

const xdg_wm_base_listener ClientWindow::wm_base_listener = {
    [](void*, xdg_wm_base* base, uint32_t serial) { xdg_wm_base_pong(base, serial); },
};

const xdg_surface_listener ClientWindow::surface_listener = {
    [](void* data, xdg_surface* surface, uint32_t serial) {
        auto* self = static_cast<ClientWindow*>(data);
        xdg_surface_ack_configure(surface, serial);
        self->configured_ = true;
    },
};

const xdg_toplevel_listener ClientWindow::toplevel_listener = {
    [](void* data, xdg_toplevel*, int32_t width, int32_t height, wl_array*) {
        auto* self = static_cast<ClientWindow*>(data);
        // Only a fullscreen demo follows the compositor's size; the others keep theirs so tests know it.
        if (self->options_.fullscreen && width > 0 && height > 0) {
            self->width_ = width;
            self->height_ = height;
        }
    },
    [](void* data, xdg_toplevel*) { static_cast<ClientWindow*>(data)->closed_ = true; },
    [](void*, xdg_toplevel*, int32_t, int32_t) {},
    [](void*, xdg_toplevel*, wl_array*) {},
};

const wp_presentation_listener ClientWindow::presentation_listener = {
    [](void* data, wp_presentation*, uint32_t clock) { static_cast<ClientWindow*>(data)->presentation_clock_ = clock; },
};

const wl_callback_listener ClientWindow::frame_listener = {
    [](void* data, wl_callback* callback, uint32_t) {
        auto* self = static_cast<ClientWindow*>(data);
        wl_callback_destroy(callback);
        self->frame_callback_ = nullptr;
        self->frame_due_ = true;
    },
};

ClientWindow::ClientWindow(const WindowOptions& options)
    : options_(options), width_(options.width), height_(options.height)
{
}

ClientWindow::~ClientWindow()
{
    if (frame_callback_)
        wl_callback_destroy(frame_callback_);
    if (decoration_)
        zxdg_toplevel_decoration_v1_destroy(decoration_);
    if (decoration_manager_)
        zxdg_decoration_manager_v1_destroy(decoration_manager_);
    if (toplevel_)
        xdg_toplevel_destroy(toplevel_);
    if (xdg_surface_)
        xdg_surface_destroy(xdg_surface_);
    if (surface_)
        wl_surface_destroy(surface_);
    if (dmabuf_)
        zwp_linux_dmabuf_v1_destroy(dmabuf_);
    if (drm_)
        wl_drm_destroy(drm_);
    if (presentation_)
        wp_presentation_destroy(presentation_);
    if (wm_base_)
        xdg_wm_base_destroy(wm_base_);
    if (shm_)
        wl_shm_destroy(shm_);
    if (compositor_)
        wl_compositor_destroy(compositor_);
    if (registry_)
        wl_registry_destroy(registry_);
    if (display_)
        wl_display_disconnect(display_);
}

bool ClientWindow::connect(std::string& error)
{
    display_ = wl_display_connect(nullptr);
    if (!display_) {
        error = "cannot connect to a Wayland compositor (is WAYLAND_DISPLAY set?)";
        return false;
    }
    registry_ = wl_display_get_registry(display_);
    wl_registry_add_listener(registry_, &registry_listener, this);
    wl_display_roundtrip(display_);
    if (!compositor_ || !wm_base_) {
        error = "the compositor lacks wl_compositor or xdg_wm_base";
        return false;
    }
    xdg_wm_base_add_listener(wm_base_, &wm_base_listener, this);
    wl_display_roundtrip(display_);  // let format events (shm, dma-buf) arrive

    surface_ = wl_compositor_create_surface(compositor_);
    xdg_surface_ = xdg_wm_base_get_xdg_surface(wm_base_, surface_);
    xdg_surface_add_listener(xdg_surface_, &surface_listener, this);
    toplevel_ = xdg_surface_get_toplevel(xdg_surface_);
    xdg_toplevel_add_listener(toplevel_, &toplevel_listener, this);
    xdg_toplevel_set_title(toplevel_, options_.title.c_str());
    xdg_toplevel_set_app_id(toplevel_, "kiln-demo");
    if (options_.fullscreen)
        xdg_toplevel_set_fullscreen(toplevel_, nullptr);
    if (options_.server_decoration) {
        if (!decoration_manager_) {
            error = "--server-decoration: the compositor offers no zxdg_decoration_manager_v1";
            return false;
        }
        decoration_ = zxdg_decoration_manager_v1_get_toplevel_decoration(decoration_manager_, toplevel_);
        zxdg_toplevel_decoration_v1_add_listener(decoration_, &decoration_listener, this);
        zxdg_toplevel_decoration_v1_set_mode(decoration_, ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
    }
    wl_surface_commit(surface_);
    while (!configured_ && !closed_)
        if (wl_display_dispatch(display_) < 0) {
            error = "connection lost before the window was configured";
            return false;
        }
    return !closed_;
}

int ClientWindow::run(const std::function<bool(uint64_t)>& draw)
{
    uint64_t frame = 0;
    while (!closed_) {
        if (frame_due_) {
            if (options_.frames >= 0 && frame >= static_cast<uint64_t>(options_.frames)) {
                if (!options_.stay)
                    break;
                // Tests compare screenshots of a still scene: say so once, then only keep the connection.
                std::printf("kiln-demo: drew %lld frames\n", static_cast<long long>(options_.frames));
                std::fflush(stdout);
                while (wl_display_dispatch(display_) >= 0 && !closed_) {
                }
                return 0;
            }
            frame_due_ = false;
            frame_callback_ = wl_surface_frame(surface_);
            wl_callback_add_listener(frame_callback_, &frame_listener, this);
            if (!draw(frame))
                return 1;
            ++frame;
        }
        if (wl_display_dispatch(display_) < 0) {
            const int code = wl_display_get_error(display_);
            std::fprintf(stderr, "kiln-demo: connection error (%s)\n", std::strerror(code));
            return 1;
        }
    }
    wl_display_roundtrip(display_);
    return 0;
}

}  // namespace kiln::clients
