// memfd-backed wl_shm buffers for the demo clients.
#include "clients/shm_buffer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace kiln::clients {

const wl_buffer_listener ShmBuffer::listener = {
    [](void* data, wl_buffer*) { static_cast<ShmBuffer*>(data)->busy_ = false; },
};

std::unique_ptr<ShmBuffer> ShmBuffer::create(wl_shm* shm, int32_t width, int32_t height, std::string& error,
                                             uint8_t alpha, bool argb)
{
    std::unique_ptr<ShmBuffer> self(new ShmBuffer());
    self->alpha_ = alpha;
    self->width_ = width;
    self->height_ = height;
    self->size_ = static_cast<size_t>(width) * static_cast<size_t>(height) * 4;
    const int fd = memfd_create("kiln-demo-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(self->size_)) != 0) {
        error = std::string("memfd: ") + std::strerror(errno);
        if (fd >= 0)
            close(fd);
        return nullptr;
    }
    void* map = mmap(nullptr, self->size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        error = std::string("mmap: ") + std::strerror(errno);
        close(fd);
        return nullptr;
    }
    self->pixels_ = static_cast<uint32_t*>(map);
    wl_shm_pool* pool = wl_shm_create_pool(shm, fd, static_cast<int32_t>(self->size_));
    self->buffer_ = wl_shm_pool_create_buffer(pool, 0, width, height, width * 4,
                                             alpha == 255 && !argb ? WL_SHM_FORMAT_XRGB8888
                                                                                : WL_SHM_FORMAT_ARGB8888);
    wl_shm_pool_destroy(pool);
    close(fd);
    wl_buffer_add_listener(self->buffer_, &listener, self.get());
    return self;
}

ShmBuffer::~ShmBuffer()
{
    if (buffer_)
        wl_buffer_destroy(buffer_);
    if (pixels_)
        munmap(pixels_, size_);
}

void ShmBuffer::fill(int32_t x, int32_t y, int32_t w, int32_t h, uint32_t xrgb)
{
    const int32_t x0 = std::clamp(x, 0, width_);
    const int32_t y0 = std::clamp(y, 0, height_);
    const int32_t x1 = std::clamp(x + w, 0, width_);
    const int32_t y1 = std::clamp(y + h, 0, height_);
    // Premultiplied: each channel scaled by alpha, rounded.
    auto channel = [&](int shift) { return (((xrgb >> shift) & 0xffu) * alpha_ + 127u) / 255u; };
    const uint32_t pixel = (static_cast<uint32_t>(alpha_) << 24) | (channel(16) << 16) | (channel(8) << 8) | channel(0);
    for (int32_t row = y0; row < y1; ++row)
        std::fill(pixels_ + static_cast<size_t>(row) * static_cast<size_t>(width_) + x0,
                  pixels_ + static_cast<size_t>(row) * static_cast<size_t>(width_) + x1, pixel);
}

}  // namespace kiln::clients
