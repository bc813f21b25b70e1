// The protocol errors of wp_linux_drm_syncobj_manager_v1 provoked one at a time, for kiln-syncobj-client --error.
#pragma once

#include "clients/dmabuf_allocator.hpp"

#include "linux-dmabuf-v1-client-protocol.h"
#include "linux-drm-syncobj-v1-client-protocol.h"

#include <wayland-client.h>

#include <string>

namespace kiln::clients {

struct SyncobjErrorCase {
    wl_display* display;
    wl_compositor* compositor;
    wl_surface* surface;  // the mapped window's
    wl_shm* shm;
    zwp_linux_dmabuf_v1* dmabuf;
    wp_linux_drm_syncobj_manager_v1* manager;
    DmabufAllocator& allocator;
    int drm_fd;
    int32_t width;
    int32_t height;
};

// The error modes, as --error takes them.
bool is_syncobj_error_mode(const std::string& mode);
// Sends the requests that must raise `mode`'s error and waits for it. Prints "protocol error: interface=I code=C
// id=N" (or "no protocol error") and returns 0 when a protocol error arrived, 1 otherwise.
int provoke_syncobj_error(const SyncobjErrorCase& c, const std::string& mode);
// Prints the connection's error ("protocol error: ..." or "connection error: ...") if it has one; false if not.
bool report_connection_error(wl_display* display);

}  // namespace kiln::clients
