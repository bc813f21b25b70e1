// ShmImage: a memfd mapped here and shared with kiln as a wl_shm buffer.
#include "shm_image.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <wayland-client.h>

namespace portal {

ShmImage::ShmImage(wl_shm* shm, int width, int height, uint32_t shm_format)
    : width_(width), height_(height), format_(shm_format) {
    size_ = static_cast<size_t>(width) * static_cast<size_t>(height) * 4;
    int fd = memfd_create("kiln-portal-frame", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return;
    if (ftruncate(fd, static_cast<off_t>(size_)) != 0) {
        close(fd);
        return;
    }
    void* data = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (data == MAP_FAILED) {
        close(fd);
        return;
    }
    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);  // whoever maps it maps it all, always
    data_ = data;
    wl_shm_pool* pool = wl_shm_create_pool(shm, fd, static_cast<int32_t>(size_));
    buffer_ = wl_shm_pool_create_buffer(pool, 0, width, height, width * 4, shm_format);
    wl_shm_pool_destroy(pool);
    fd_ = fd;  // kept for PipeWire (a stream's buffer); the pool holds its own reference
}

ShmImage::~ShmImage() {
    if (buffer_)
        wl_buffer_destroy(buffer_);
    if (data_)
        munmap(data_, size_);
    if (fd_ >= 0)
        close(fd_);
}

}  // namespace portal
