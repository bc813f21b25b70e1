// ShmImage: one memfd-backed wl_shm buffer that kiln copies a captured frame into and the portal reads from (or
// hands to PipeWire as a MemFd buffer, fd()).
#pragma once

#include <cstddef>
#include <cstdint>

struct wl_buffer;
struct wl_shm;

namespace portal {

class ShmImage {
public:
    // A width x height buffer of shm_format (4 bytes a pixel); valid() is false where memfd or mmap failed.
    ShmImage(wl_shm* shm, int width, int height, uint32_t shm_format);
    ~ShmImage();
    ShmImage(const ShmImage&) = delete;
    ShmImage& operator=(const ShmImage&) = delete;

    bool valid() const { return buffer_ != nullptr; }
    wl_buffer* buffer() const { return buffer_; }
    const uint8_t* pixels() const { return static_cast<const uint8_t*>(data_); }
    uint8_t* pixels() { return static_cast<uint8_t*>(data_); }
    // The memfd (sealed against resizing), for a consumer to map; ours, closed with the image.
    int fd() const { return fd_; }
    size_t size() const { return size_; }
    int width() const { return width_; }
    int height() const { return height_; }
    int stride() const { return width_ * 4; }
    uint32_t shm_format() const { return format_; }

private:
    int width_;
    int height_;
    uint32_t format_;
    size_t size_ = 0;
    int fd_ = -1;
    void* data_ = nullptr;
    wl_buffer* buffer_ = nullptr;
};

}  // namespace portal
