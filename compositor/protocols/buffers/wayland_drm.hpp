// WaylandDrm: the legacy wl_drm global (v2) that Mesa's EGL clients and older Xwayland use: it names the DRM device
// and takes PRIME buffers through the same validation and import as linux-dmabuf.
#pragma once

#include "compositor/wlr.hpp"

#include <string>

namespace kiln::compositor {

class LinuxDmabufV1;
class RenderBridge;

class WaylandDrm {
public:
    // `device` is the node clients open (a render node when the device has one); the global exists only then.
    WaylandDrm(wl_display* display, RenderBridge& bridge, LinuxDmabufV1& dmabuf, std::string device);
    ~WaylandDrm();
    WaylandDrm(const WaylandDrm&) = delete;
    WaylandDrm& operator=(const WaylandDrm&) = delete;

    void bind(wl_client* client, uint32_t version, uint32_t id);
    void create_prime_buffer(wl_resource* resource, uint32_t id, int32_t fd, int32_t width, int32_t height,
                             uint32_t format, const int32_t offsets[3], const int32_t strides[3]);

private:
    RenderBridge& bridge_;
    LinuxDmabufV1& dmabuf_;
    std::string device_;
    wl_global* global_ = nullptr;
};

// The node wl_drm should name for a DRM fd: its render node, else its primary node; empty when there is none.
std::string drm_node_for(int drm_fd);

}  // namespace kiln::compositor
