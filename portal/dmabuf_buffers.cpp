// DmabufDevice: opens the capture's DRM node with GBM, makes one-plane buffers with an agreed modifier, exports
// them and wraps them in linux-dmabuf wl_buffers.
#include "dmabuf_buffers.hpp"

#include <cerrno>
#include <cstring>

#include <drm_fourcc.h>
#include <fcntl.h>
#include <gbm.h>
#include <unistd.h>
#include <xf86drm.h>

#include "linux-dmabuf-v1-client-protocol.h"
#include "output_capture.hpp"

namespace portal {

DmabufBuffer::~DmabufBuffer() {
    if (buffer_)
        wl_buffer_destroy(buffer_);
    if (fd_ >= 0)
        close(fd_);
    if (bo_)
        gbm_bo_destroy(bo_);
}

std::unique_ptr<DmabufDevice> DmabufDevice::open(dev_t device, zwp_linux_dmabuf_v1* linux_dmabuf,
                                                 std::string& error) {
    if (!linux_dmabuf) {
        error = "kiln offers no zwp_linux_dmabuf_v1";
        return nullptr;
    }
    drmDevice* info = nullptr;
    if (drmGetDeviceFromDevId(device, 0, &info) != 0 || !info) {
        error = "no DRM device for the capture's dev_t";
        return nullptr;
    }
    // The device's render node first; a device without one (a display-only KMS driver such as vkms) draws nothing
    // itself, so then another render node that can allocate, and the device's own primary node last.
    std::vector<std::string> paths;
    if (info->available_nodes & (1 << DRM_NODE_RENDER))
        paths.emplace_back(info->nodes[DRM_NODE_RENDER]);
    std::string primary = (info->available_nodes & (1 << DRM_NODE_PRIMARY)) ? info->nodes[DRM_NODE_PRIMARY] : "";
    drmFreeDevice(&info);
    if (paths.empty()) {
        drmDevice* all[16];
        int count = drmGetDevices2(0, all, 16);
        for (int i = 0; i < count; ++i)
            if (all[i]->available_nodes & (1 << DRM_NODE_RENDER))
                paths.emplace_back(all[i]->nodes[DRM_NODE_RENDER]);
        if (count > 0)
            drmFreeDevices(all, count);
    }
    if (!primary.empty())
        paths.push_back(primary);
    for (const std::string& path : paths) {
        int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
        if (fd < 0)
            continue;
        gbm_device* gbm = gbm_create_device(fd);
        // Only a device that really allocates (render nodes of some software drivers cannot).
        gbm_bo* probe = gbm ? gbm_bo_create(gbm, 16, 16, GBM_FORMAT_XRGB8888, GBM_BO_USE_LINEAR) : nullptr;
        if (!probe) {
            if (gbm)
                gbm_device_destroy(gbm);
            close(fd);
            continue;
        }
        gbm_bo_destroy(probe);
        std::unique_ptr<DmabufDevice> self(new DmabufDevice());
        self->fd_ = fd;
        self->gbm_ = gbm;
        self->path_ = path;
        self->linux_dmabuf_ = linux_dmabuf;
        return self;
    }
    error = paths.empty() ? "the capture's DRM device has no node" : "GBM cannot allocate on " + paths.front();
    return nullptr;
}

DmabufDevice::~DmabufDevice() {
    if (gbm_)
        gbm_device_destroy(gbm_);
    if (fd_ >= 0)
        close(fd_);
}

gbm_bo* DmabufDevice::create(uint32_t fourcc, int width, int height, uint64_t modifier) {
    auto w = static_cast<uint32_t>(width), h = static_cast<uint32_t>(height);
    gbm_bo* bo = gbm_bo_create_with_modifiers2(gbm_, w, h, fourcc, &modifier, 1, GBM_BO_USE_RENDERING);
    // Drivers without modifier support (software ones, dumb buffers) still make linear buffers when asked so.
    if (!bo && modifier == DRM_FORMAT_MOD_LINEAR)
        bo = gbm_bo_create(gbm_, w, h, fourcc, GBM_BO_USE_RENDERING | GBM_BO_USE_LINEAR);
    if (!bo)
        return nullptr;
    uint64_t made = gbm_bo_get_modifier(bo);
    bool same = made == modifier || (made == DRM_FORMAT_MOD_INVALID && modifier == DRM_FORMAT_MOD_LINEAR);
    if (!same || gbm_bo_get_plane_count(bo) != 1) {
        gbm_bo_destroy(bo);
        return nullptr;
    }
    return bo;
}

std::optional<uint64_t> DmabufDevice::pick(uint32_t fourcc, int width, int height,
                                           const std::vector<uint64_t>& modifiers) {
    for (uint64_t modifier : modifiers)
        if (gbm_bo* bo = create(fourcc, width, height, modifier)) {
            gbm_bo_destroy(bo);
            return modifier;
        }
    return std::nullopt;
}

std::unique_ptr<DmabufBuffer> DmabufDevice::allocate(uint32_t fourcc, int width, int height, uint64_t modifier,
                                                     std::string& error) {
    std::unique_ptr<DmabufBuffer> buffer(new DmabufBuffer());
    buffer->bo_ = create(fourcc, width, height, modifier);
    if (!buffer->bo_) {
        error = std::string("GBM made no buffer with that modifier: ") + std::strerror(errno);
        return nullptr;
    }
    // Read-write: a consumer that reads the frame on the CPU maps it (gbm_bo_get_fd exports read-only).
    int fd = -1;
    if (drmPrimeHandleToFD(fd_, gbm_bo_get_handle(buffer->bo_).u32, DRM_CLOEXEC | DRM_RDWR, &fd) != 0)
        fd = gbm_bo_get_fd(buffer->bo_);
    if (fd < 0) {
        error = "cannot export the buffer as a dma-buf";
        return nullptr;
    }
    buffer->fd_ = fd;
    buffer->stride_ = gbm_bo_get_stride(buffer->bo_);
    buffer->offset_ = gbm_bo_get_offset(buffer->bo_, 0);
    buffer->modifier_ = modifier;
    off_t end = lseek(fd, 0, SEEK_END);
    buffer->size_ = end > 0 ? static_cast<uint32_t>(end) : buffer->stride_ * static_cast<uint32_t>(height);
    lseek(fd, 0, SEEK_SET);
    zwp_linux_buffer_params_v1* params = zwp_linux_dmabuf_v1_create_params(linux_dmabuf_);
    zwp_linux_buffer_params_v1_add(params, fd, 0, buffer->offset_, buffer->stride_, static_cast<uint32_t>(modifier >> 32),
                                   static_cast<uint32_t>(modifier & 0xffffffffu));
    buffer->buffer_ = zwp_linux_buffer_params_v1_create_immed(params, width, height, fourcc, 0);
    zwp_linux_buffer_params_v1_destroy(params);
    return buffer;
}

}  // namespace portal
