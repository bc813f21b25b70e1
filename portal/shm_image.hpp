// ShmImage: one memfd-backed wl_shm buffer that kiln copies a captured frame into and the portal reads from.
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
    int width() const { return width_; }
    int height() const { return height_; }
    int stride() const { return width_ * 4; }
    uint32_t shm_format() const { return format_; }

private:
    int width_;
    int height_;
    uint32_t format_;
    size_t size_ = 0;
    void* data_ = nullptr;
    wl_buffer* buffer_ = nullptr;
};

}  // namespace portal
