// DmabufDevice and DmabufBuffer: GBM on the DRM device kiln's capture names, making the dma-bufs a stream's frames
// are captured into (by kiln's GPU copy), each with the wl_buffer kiln knows it by.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

struct gbm_bo;
struct gbm_device;
struct wl_buffer;
struct zwp_linux_dmabuf_v1;

namespace portal {

class DmabufBuffer {
public:
    ~DmabufBuffer();
    DmabufBuffer(const DmabufBuffer&) = delete;
    DmabufBuffer& operator=(const DmabufBuffer&) = delete;

    int fd() const { return fd_; }
    uint32_t stride() const { return stride_; }
    uint32_t offset() const { return offset_; }
    uint32_t size() const { return size_; }
    uint64_t modifier() const { return modifier_; }
    wl_buffer* buffer() const { return buffer_; }

private:
    friend class DmabufDevice;
    DmabufBuffer() = default;
    gbm_bo* bo_ = nullptr;
    int fd_ = -1;
    uint32_t stride_ = 0, offset_ = 0, size_ = 0;
    uint64_t modifier_ = 0;
    wl_buffer* buffer_ = nullptr;
};

class DmabufDevice {
public:
    // GBM on `device`'s render node (else its primary node); nullptr with `error` where it cannot allocate.
    static std::unique_ptr<DmabufDevice> open(dev_t device, zwp_linux_dmabuf_v1* linux_dmabuf, std::string& error);
    ~DmabufDevice();
    DmabufDevice(const DmabufDevice&) = delete;
    DmabufDevice& operator=(const DmabufDevice&) = delete;

    const std::string& path() const { return path_; }
    // The first of `modifiers` (in our order) a one-plane width x height `fourcc` buffer can be made with.
    std::optional<uint64_t> pick(uint32_t fourcc, int width, int height, const std::vector<uint64_t>& modifiers);
    // A buffer with exactly `modifier`, and its wl_buffer; nullptr with `error`.
    std::unique_ptr<DmabufBuffer> allocate(uint32_t fourcc, int width, int height, uint64_t modifier,
                                           std::string& error);

private:
    DmabufDevice() = default;
    gbm_bo* create(uint32_t fourcc, int width, int height, uint64_t modifier);

    int fd_ = -1;
    gbm_device* gbm_ = nullptr;
    std::string path_;
    zwp_linux_dmabuf_v1* linux_dmabuf_ = nullptr;
};

}  // namespace portal
