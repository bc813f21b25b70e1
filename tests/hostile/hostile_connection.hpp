// Connection: what a hostile test client needs to misbehave: globals, shm pools and buffers, mapped toplevels,
// and the outcome line that tells the test driver how the compositor answered.
#pragma once

#include "viewporter-client-protocol.h"
#include "xdg-shell-client-protocol.h"

#include <wayland-client.h>

#include <cstdint>
#include <map>
#include <string>

namespace kiln::hostile {

// A memfd-backed wl_shm_pool; the fd stays open so a case can truncate it.
struct Pool {
    int fd = -1;
    int32_t size = 0;
    wl_shm_pool* pool = nullptr;
};

// A surface with the xdg_toplevel role whose first configure has been acknowledged.
struct Toplevel {
    wl_surface* surface = nullptr;
    xdg_surface* xdg = nullptr;
    xdg_toplevel* toplevel = nullptr;
};

// Flushes everything queued, waiting for the socket when it is full (a flood must not fail on the client's side);
// false once the connection is gone.
bool flush_all(wl_display* display);

class Connection {
public:
    Connection();
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    bool ok() const { return display && compositor && subcompositor && shm && wm_base; }

    // A pool of `size` bytes (the memfd is as large, unless `file_size` says otherwise).
    Pool make_pool(int32_t size, int32_t file_size = -1);
    // A buffer of its own pool, filled with `argb`.
    wl_buffer* make_buffer(int32_t width, int32_t height, uint32_t argb = 0xff3060c0);
    // A toplevel, configured (and shown with a buffer when `map`).
    Toplevel make_toplevel(bool map = true, int32_t width = 64, int32_t height = 64);
    // A popup of `parent` (may be null), 32x32 at (8, 8), initial commit done, not yet mapped.
    xdg_surface* make_popup_surface(wl_surface* surface, xdg_surface* parent, xdg_popup** popup = nullptr);

    // Up to `rounds` round trips; "protocol-error IFACE CODE", "disconnected ERRNO" or "connected".
    std::string outcome(int rounds = 3);
    bool roundtrip() { return wl_display_roundtrip(display) >= 0; }

    wl_display* display = nullptr;
    wl_registry* registry = nullptr;
    wl_compositor* compositor = nullptr;
    wl_subcompositor* subcompositor = nullptr;
    wl_shm* shm = nullptr;
    wl_seat* seat = nullptr;
    wl_data_device_manager* data_device_manager = nullptr;
    xdg_wm_base* wm_base = nullptr;
    wp_viewporter* viewporter = nullptr;
    // Every global the registry announced: name -> interface.
    std::map<uint32_t, std::string> globals;
};

}  // namespace kiln::hostile
