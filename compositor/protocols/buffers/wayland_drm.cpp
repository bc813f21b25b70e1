// wl_drm v2: authenticate always succeeds (render nodes need none), GEM names are refused, PRIME buffers are
// validated and imported once like linux-dmabuf buffers.
#include "compositor/protocols/buffers/wayland_drm.hpp"

#include "compositor/protocols/buffers/dmabuf_buffer.hpp"
#include "compositor/protocols/buffers/linux_dmabuf_v1.hpp"
#include "compositor/bridge/render_bridge.hpp"
#include "renderer/formats.hpp"

#include "linux-dmabuf-v1-protocol.h"
#include "wayland-drm-protocol.h"

#include <drm_fourcc.h>
#include <unistd.h>
#include <xf86drm.h>

#include <cstdlib>

namespace kiln::compositor {
namespace {

WaylandDrm* self_of(wl_resource* resource)
{
    return static_cast<WaylandDrm*>(wl_resource_get_user_data(resource));
}

const struct wl_drm_interface drm_requests = {
    .authenticate = [](wl_client*, wl_resource* resource, uint32_t) noexcept { wl_drm_send_authenticated(resource); },
    .create_buffer = [](wl_client*, wl_resource* resource, uint32_t, uint32_t, int32_t, int32_t, uint32_t,
                        uint32_t) noexcept {
        wl_resource_post_error(resource, WL_DRM_ERROR_INVALID_NAME, "GEM names are not supported: use PRIME");
    },
    .create_planar_buffer = [](wl_client*, wl_resource* resource, uint32_t, uint32_t, int32_t, int32_t, uint32_t,
                               int32_t, int32_t, int32_t, int32_t, int32_t, int32_t) noexcept {
        wl_resource_post_error(resource, WL_DRM_ERROR_INVALID_NAME, "GEM names are not supported: use PRIME");
    },
    .create_prime_buffer = [](wl_client*, wl_resource* resource, uint32_t id, int32_t fd, int32_t width,
                              int32_t height, uint32_t format, int32_t offset0, int32_t stride0, int32_t offset1,
                              int32_t stride1, int32_t offset2, int32_t stride2) noexcept {
        const int32_t offsets[3] = {offset0, offset1, offset2};
        const int32_t strides[3] = {stride0, stride1, stride2};
        self_of(resource)->create_prime_buffer(resource, id, fd, width, height, format, offsets, strides);
    },
};

}  // namespace

std::string drm_node_for(int drm_fd)
{
    if (drm_fd < 0)
        return {};
    char* name = drmGetRenderDeviceNameFromFd(drm_fd);
    if (!name)
        name = drmGetDeviceNameFromFd2(drm_fd);
    if (!name)
        return {};
    std::string node = name;
    free(name);
    return node;
}

WaylandDrm::WaylandDrm(wl_display* display, RenderBridge& bridge, LinuxDmabufV1& dmabuf, std::string device)
    : bridge_(bridge), dmabuf_(dmabuf), device_(std::move(device))
{
    global_ = wl_global_create(display, &wl_drm_interface, 2, this,
                               [](wl_client* client, void* data, uint32_t version, uint32_t id) noexcept {
                                   static_cast<WaylandDrm*>(data)->bind(client, version, id);
                               });
}

WaylandDrm::~WaylandDrm()
{
    if (global_)
        wl_global_destroy(global_);
}

void WaylandDrm::bind(wl_client* client, uint32_t version, uint32_t id)
{
    wl_resource* resource = wl_resource_create(client, &wl_drm_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &drm_requests, this, nullptr);
    wl_drm_send_device(resource, device_.c_str());
    for (const auto& fm : bridge_.egl().profile().dmabuf_formats)
        if (fm.modifier == DRM_FORMAT_MOD_INVALID)
            wl_drm_send_format(resource, fm.fourcc);
    if (version >= 2)
        wl_drm_send_capabilities(resource, WL_DRM_CAPABILITY_PRIME);
}

void WaylandDrm::create_prime_buffer(wl_resource* resource, uint32_t id, int32_t fd, int32_t width, int32_t height,
                                     uint32_t format, const int32_t offsets[3], const int32_t strides[3])
{
    const auto info = renderer::format_info(format);
    if (!info) {
        close(fd);
        wl_resource_post_error(resource, WL_DRM_ERROR_INVALID_FORMAT, "unknown format 0x%08x", format);
        return;
    }
    // wl_drm sends one fd for every plane: each plane gets its own duplicate so the buffer can own them.
    renderer::DmabufAttributes attributes;
    attributes.width = width;
    attributes.height = height;
    attributes.fourcc = format;
    attributes.modifier = DRM_FORMAT_MOD_INVALID;
    attributes.plane_count = info->plane_count;
    for (uint32_t i = 0; i < info->plane_count && i < 3; ++i) {
        if (offsets[i] < 0 || strides[i] < 0) {
            close(fd);
            for (uint32_t j = 0; j < i; ++j)
                close(attributes.planes[j].fd);
            wl_resource_post_error(resource, WL_DRM_ERROR_INVALID_NAME, "negative offset or stride");
            return;
        }
        attributes.planes[i] = {i == 0 ? fd : dup(fd), static_cast<uint32_t>(offsets[i]), static_cast<uint32_t>(strides[i])};
    }
    auto close_all = [&] {
        for (uint32_t i = 0; i < attributes.plane_count; ++i)
            if (attributes.planes[i].fd >= 0)
                close(attributes.planes[i].fd);
    };
    uint32_t code = 0;
    std::string why;
    if (!dmabuf_.validate(attributes, code, why)) {
        close_all();
        wl_resource_post_error(resource, code == ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_FORMAT ? WL_DRM_ERROR_INVALID_FORMAT : WL_DRM_ERROR_INVALID_NAME,
                               "%s", why.c_str());
        return;
    }
    DmabufBuffer* buffer = DmabufBuffer::create(wl_resource_get_client(resource), id, attributes);
    std::string error;
    if (buffer && !bridge_.textures().import_client_buffer(buffer->wlr(), error)) {
        wl_resource_post_error(resource, WL_DRM_ERROR_INVALID_NAME, "cannot import the buffer: %s", error.c_str());
        wl_resource_destroy(buffer->resource());
    }
}

}  // namespace kiln::compositor
