// Allocation paths: gbm_bo_create (linear), UDMABUF_CREATE over a sealed memfd, DMA_HEAP_IOCTL_ALLOC, memfd.
#include "clients/dmabuf_allocator.hpp"

#include <drm_fourcc.h>
#include <fcntl.h>
#include <gbm.h>
#include <xf86drm.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/udmabuf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace kiln::clients {
namespace {

uint64_t page_round(uint64_t n)
{
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    return (n + page - 1) / page * page;
}

int sealed_memfd(uint64_t size, std::string& error)
{
    const int fd = memfd_create("kiln-demo-dmabuf", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(size)) != 0) {
        error = std::string("memfd: ") + std::strerror(errno);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

void sync(int fd, uint64_t flags, bool enabled)
{
    if (!enabled)
        return;
    dma_buf_sync s{flags};
    ioctl(fd, DMA_BUF_IOCTL_SYNC, &s);  // not a dma-buf (memfd): harmless ENOTTY
}

}  // namespace

DmabufAllocation::~DmabufAllocation()
{
    if (bo)
        gbm_bo_destroy(bo);
    if (fd >= 0)
        close(fd);
    if (memfd >= 0)
        close(memfd);
}

std::unique_ptr<DmabufAllocator> DmabufAllocator::open(DmabufSource source, const std::string& device,
                                                       std::string& error)
{
    std::unique_ptr<DmabufAllocator> self(new DmabufAllocator());
    self->source_ = source;
    switch (source) {
    case DmabufSource::gbm: {
        std::vector<std::string> candidates;
        if (!device.empty())
            candidates.push_back(device);
        std::error_code ec;
        for (const auto& e : std::filesystem::directory_iterator("/dev/dri", ec))
            candidates.push_back(e.path().string());
        std::sort(candidates.begin() + (device.empty() ? 0 : 1), candidates.end());
        for (const auto& path : candidates) {
            const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
            if (fd < 0)
                continue;
            gbm_device* gbm = gbm_create_device(fd);
            // Only keep a device that can really allocate (render nodes of software drivers cannot).
            gbm_bo* probe = gbm ? gbm_bo_create(gbm, 16, 16, GBM_FORMAT_XRGB8888, GBM_BO_USE_LINEAR) : nullptr;
            if (probe) {
                gbm_bo_destroy(probe);
                self->device_fd_ = fd;
                self->gbm_ = gbm;
                return self;
            }
            if (gbm)
                gbm_device_destroy(gbm);
            close(fd);
        }
        error = "no DRM device here can allocate GBM buffers";
        return nullptr;
    }
    case DmabufSource::udmabuf:
        self->device_fd_ = ::open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
        if (self->device_fd_ < 0) {
            error = std::string("/dev/udmabuf: ") + std::strerror(errno);
            return nullptr;
        }
        return self;
    case DmabufSource::heap:
        self->device_fd_ = ::open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
        if (self->device_fd_ < 0) {
            error = std::string("/dev/dma_heap/system: ") + std::strerror(errno);
            return nullptr;
        }
        return self;
    case DmabufSource::memfd:
        return self;
    }
    return nullptr;
}

DmabufAllocator::~DmabufAllocator()
{
    if (gbm_)
        gbm_device_destroy(gbm_);
    if (device_fd_ >= 0)
        close(device_fd_);
}

const char* DmabufAllocator::name() const
{
    switch (source_) {
    case DmabufSource::gbm: return "gbm";
    case DmabufSource::udmabuf: return "udmabuf";
    case DmabufSource::heap: return "heap";
    case DmabufSource::memfd: return "memfd";
    }
    return "?";
}

std::unique_ptr<DmabufAllocation> DmabufAllocator::allocate(uint32_t width, uint32_t height, uint32_t fourcc,
                                                            std::string& error)
{
    auto out = std::make_unique<DmabufAllocation>();
    out->fourcc = fourcc;
    out->modifier = DRM_FORMAT_MOD_LINEAR;
    if (fourcc == DRM_FORMAT_NV12) {
        if (source_ == DmabufSource::gbm) {
            error = "NV12 comes from udmabuf, heap or memfd here";
            return nullptr;
        }
        // Luma, then the half-height interleaved chroma plane, page-aligned like real allocators place it.
        out->stride = width;
        out->chroma_offset = static_cast<uint32_t>(page_round(static_cast<uint64_t>(width) * height));
        out->size = out->chroma_offset + page_round(static_cast<uint64_t>(width) * ((height + 1) / 2));
    } else {
        out->stride = width * 4;
        out->size = page_round(static_cast<uint64_t>(out->stride) * height);
    }
    switch (source_) {
    case DmabufSource::gbm:
        out->bo = gbm_bo_create(gbm_, width, height, fourcc, GBM_BO_USE_LINEAR | GBM_BO_USE_RENDERING);
        if (!out->bo) {
            error = std::string("gbm_bo_create: ") + std::strerror(errno);
            return nullptr;
        }
        // gbm_bo_get_fd exports read-only; a consumer that maps the buffer (software drivers do) needs read-write.
        if (drmPrimeHandleToFD(gbm_device_get_fd(gbm_), gbm_bo_get_handle(out->bo).u32, DRM_CLOEXEC | DRM_RDWR,
                               &out->fd) != 0)
            out->fd = gbm_bo_get_fd(out->bo);
        out->stride = gbm_bo_get_stride(out->bo);
        out->offset = gbm_bo_get_offset(out->bo, 0);
        out->modifier = gbm_bo_get_modifier(out->bo);
        if (out->modifier == DRM_FORMAT_MOD_INVALID)
            out->modifier = DRM_FORMAT_MOD_LINEAR;
        break;
    case DmabufSource::udmabuf: {
        out->memfd = sealed_memfd(out->size, error);
        if (out->memfd < 0)
            return nullptr;
        fcntl(out->memfd, F_ADD_SEALS, F_SEAL_SHRINK);  // udmabuf insists the memory cannot shrink under it
        udmabuf_create create{};
        create.memfd = static_cast<uint32_t>(out->memfd);
        create.flags = UDMABUF_FLAGS_CLOEXEC;
        create.offset = 0;
        create.size = out->size;
        out->fd = ioctl(device_fd_, UDMABUF_CREATE, &create);
        break;
    }
    case DmabufSource::heap: {
        dma_heap_allocation_data alloc{};
        alloc.len = out->size;
        alloc.fd_flags = O_RDWR | O_CLOEXEC;
        if (ioctl(device_fd_, DMA_HEAP_IOCTL_ALLOC, &alloc) == 0)
            out->fd = static_cast<int>(alloc.fd);
        break;
    }
    case DmabufSource::memfd:
        out->fd = sealed_memfd(out->size, error);
        // As udmabuf asks: memory read in place must not shrink (kiln reads an unsealed memfd only through EGL).
        if (out->fd >= 0)
            fcntl(out->fd, F_ADD_SEALS, F_SEAL_SHRINK);
        break;
    }
    if (out->fd < 0) {
        if (error.empty())
            error = std::string(name()) + " allocation failed: " + std::strerror(errno);
        return nullptr;
    }
    return out;
}

bool DmabufAllocator::fill(DmabufAllocation& buffer, uint32_t width, uint32_t height, uint32_t xrgb, std::string& error,
                           bool bracket_with_sync)
{
    // XBGR8888 holds the same colour with red and blue swapped in the 32-bit word.
    const uint32_t pixel = buffer.fourcc == DRM_FORMAT_XBGR8888
                               ? 0xff000000u | ((xrgb & 0xff) << 16) | (xrgb & 0xff00) | ((xrgb >> 16) & 0xff)
                               : 0xff000000u | xrgb;
    if (buffer.bo) {
        uint32_t stride = 0;
        void* data = nullptr;
        void* map = gbm_bo_map(buffer.bo, 0, 0, width, height, GBM_BO_TRANSFER_WRITE, &stride, &data);
        if (!map) {
            error = "gbm_bo_map failed";
            return false;
        }
        for (uint32_t y = 0; y < height; ++y)
            std::fill_n(reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(map) + y * stride), width, pixel);
        gbm_bo_unmap(buffer.bo, data);
        return true;
    }
    const int fd = buffer.memfd >= 0 ? buffer.memfd : buffer.fd;
    void* map = mmap(nullptr, buffer.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        error = std::string("mmap: ") + std::strerror(errno);
        return false;
    }
    sync(buffer.fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE, bracket_with_sync);
    if (buffer.fourcc == DRM_FORMAT_NV12) {
        // Video-range luma of the colour's green channel, neutral chroma: a grey.
        const auto luma = static_cast<uint8_t>(16 + ((xrgb >> 8) & 0xff) * 219 / 255);
        auto* bytes = static_cast<uint8_t*>(map);
        for (uint32_t y = 0; y < height; ++y)
            std::fill_n(bytes + y * buffer.stride, width, luma);
        for (uint32_t y = 0; y < (height + 1) / 2; ++y)
            std::fill_n(bytes + buffer.chroma_offset + y * buffer.stride, width, uint8_t{128});
        sync(buffer.fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE, bracket_with_sync);
        munmap(map, buffer.size);
        return true;
    }
    for (uint32_t y = 0; y < height; ++y)
        std::fill_n(reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(map) + buffer.offset + y * buffer.stride), width,
                    pixel);
    sync(buffer.fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE, bracket_with_sync);
    munmap(map, buffer.size);
    return true;
}

}  // namespace kiln::clients
