// ShmBuffer: one wl_shm buffer in its own memfd, mapped for drawing, that knows when the compositor released it.
#pragma once

#include <wayland-client.h>

#include <cstdint>
#include <memory>
#include <string>

namespace kiln::clients {

class ShmBuffer {
public:
    // XRGB8888 of the given size; nullptr with `error` on failure.
    // `alpha` < 255 makes an ARGB8888 buffer whose fills are translucent (premultiplied), else XRGB8888 (or
    // ARGB8888 with `argb`: opaque pixels the compositor knows opaque only from the surface's opaque region).
    static std::unique_ptr<ShmBuffer> create(wl_shm* shm, int32_t width, int32_t height, std::string& error,
                                             uint8_t alpha = 255, bool argb = false);
    ~ShmBuffer();
    ShmBuffer(const ShmBuffer&) = delete;
    ShmBuffer& operator=(const ShmBuffer&) = delete;

    wl_buffer* buffer() const { return buffer_; }
    uint32_t* pixels() const { return pixels_; }
    int32_t width() const { return width_; }
    int32_t height() const { return height_; }
    int32_t stride_pixels() const { return width_; }
    bool busy() const { return busy_; }
    void set_busy() { busy_ = true; }
    void fill(int32_t x, int32_t y, int32_t w, int32_t h, uint32_t xrgb);

private:
    ShmBuffer() = default;
    static const wl_buffer_listener listener;

    wl_buffer* buffer_ = nullptr;
    uint32_t* pixels_ = nullptr;
    size_t size_ = 0;
    uint8_t alpha_ = 255;
    int32_t width_ = 0;
    int32_t height_ = 0;
    bool busy_ = false;
};

}  // namespace kiln::clients
