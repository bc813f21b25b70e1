// Mapping a linear dma-buf plane read-only and bracketing its reads with DMA_BUF_IOCTL_SYNC.
#include "compositor/bridge/dmabuf_mapping.hpp"

#include <linux/dma-buf.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>

namespace kiln::compositor {

std::unique_ptr<DmabufMapping> DmabufMapping::map(int fd, uint32_t offset, uint32_t stride, uint32_t row_bytes,
                                                  uint32_t rows, std::string& error)
{
    if (rows == 0 || row_bytes == 0 || row_bytes > stride) {
        error = "empty plane or rows longer than the stride";
        return nullptr;
    }
    // A dma-buf's size is where its end seeks to (memfds answer the same way).
    const off_t end = lseek(fd, 0, SEEK_END);
    if (end < 0) {
        error = std::string("the fd has no size: ") + std::strerror(errno);
        return nullptr;
    }
    const uint64_t needed = uint64_t{offset} + uint64_t{stride} * (rows - 1) + row_bytes;
    if (needed > static_cast<uint64_t>(end)) {
        error = "the plane ends at byte " + std::to_string(needed) + " of a " + std::to_string(end) + "-byte buffer";
        return nullptr;
    }
    std::unique_ptr<DmabufMapping> self(new DmabufMapping());
    self->fd_ = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (self->fd_ < 0) {
        error = std::string("dup: ") + std::strerror(errno);
        return nullptr;
    }
    // From the start of the buffer: mmap offsets must be page-aligned, plane offsets need not be.
    self->size_ = static_cast<size_t>(needed);
    void* base = mmap(nullptr, self->size_, PROT_READ, MAP_SHARED, self->fd_, 0);
    if (base == MAP_FAILED) {
        error = std::string("mmap: ") + std::strerror(errno);
        return nullptr;  // closes the dup
    }
    self->base_ = base;
    self->offset_ = offset;
    self->stride_ = stride;
    // Only a dma-buf knows the sync ioctl. Asked with no direction it refuses at once (EINVAL) without waiting for
    // the fences of a buffer the client may still be drawing into; other fds do not know it (ENOTTY).
    const int probe = self->sync(0);
    if (probe == EINVAL)
        return self;
    // Other memory (a memfd given as a dma-buf) needs no bracketing, but must be sealed against shrinking, as udmabuf
    // demands: a read past a client's truncation would be SIGBUS in kiln.
    const int seals = fcntl(self->fd_, F_GET_SEALS);
    if (seals < 0 || !(seals & F_SEAL_SHRINK)) {
        error = "memory that is not a dma-buf and may shrink (no F_SEAL_SHRINK)";
        return nullptr;
    }
    self->synced_ = false;
    return self;
}

DmabufMapping::~DmabufMapping()
{
    if (base_)
        munmap(base_, size_);
    if (fd_ >= 0)
        close(fd_);
}

int DmabufMapping::sync(uint64_t flags) const
{
    dma_buf_sync arg{};
    arg.flags = flags;
    for (;;) {
        ++syncs_;
        if (ioctl(fd_, DMA_BUF_IOCTL_SYNC, &arg) == 0)
            return 0;
        if (errno != EINTR && errno != EAGAIN)
            return errno;
    }
}

bool DmabufMapping::writes_pending() const
{
    // A dma-buf polls readable once its write fences have signalled.
    pollfd p{fd_, POLLIN, 0};
    return poll(&p, 1, 0) != 1 || !(p.revents & POLLIN);
}

bool DmabufMapping::read(const std::function<void(const void* data, uint32_t stride)>& use) const
{
    // A sync start waits for the buffer's write fences. Those of a commit are waited for before it applies
    // (CommitGate), but a client may commit the buffer on screen again with a new fence (drawing into it until it
    // signals): kiln's thread must not wait for that, so the frame reads what is there, the content still shown.
    const bool bracket = synced_ && !writes_pending();
    if (bracket && sync(DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ) != 0)
        return false;
    if (synced_ && !bracket)
        ++unbracketed_reads_;
    use(static_cast<const uint8_t*>(base_) + offset_, stride_);
    if (bracket)
        sync(DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
    return true;
}

}  // namespace kiln::compositor
