// DmabufMapping: one plane of a client's linear dma-buf mapped read-only into kiln, each read bracketed by
// DMA_BUF_IOCTL_SYNC, so CPU composition reads it where it lies and no EGLImage (no EGL) is needed for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace kiln::compositor {

class DmabufMapping {
public:
    // Maps the plane of `fd` that starts at `offset`: `rows` rows of `row_bytes` bytes, `stride` bytes apart. The
    // fd is duplicated (the mapping's own, for the sync ioctl; the client's wl_buffer may close its copy first).
    // nullptr with `error` when the fd cannot be mapped or is too small for the plane, or is memory that is not a
    // dma-buf (a memfd) without F_SEAL_SHRINK.
    static std::unique_ptr<DmabufMapping> map(int fd, uint32_t offset, uint32_t stride, uint32_t row_bytes,
                                              uint32_t rows, std::string& error);
    ~DmabufMapping();
    DmabufMapping(const DmabufMapping&) = delete;
    DmabufMapping& operator=(const DmabufMapping&) = delete;

    // Calls `use` with the plane's first byte and its stride between a read sync's start and end (the kernel makes
    // what a device wrote visible to the CPU); false, without calling it, if the sync could not start. Never waits:
    // while a write fence of the buffer is pending, the read is not bracketed (unbracketed_reads()).
    bool read(const std::function<void(const void* data, uint32_t stride)>& use) const;
    // The mapping's own fd of the buffer (open as long as the mapping), for an EGL import of the same memory.
    int fd() const { return fd_; }
    // Whether reads are bracketed: false for memory that is not a dma-buf (a memfd passed as one), which needs none.
    bool synced() const { return synced_; }
    // The sync ioctls made so far (start and end each count), and reads left unbracketed, for tests.
    uint64_t syncs() const { return syncs_; }
    uint64_t unbracketed_reads() const { return unbracketed_reads_; }

private:
    DmabufMapping() = default;
    // DMA_BUF_IOCTL_SYNC with `flags`, retried when interrupted; the errno it failed with, or 0.
    int sync(uint64_t flags) const;
    // Whether a device may still be writing the buffer (a write fence not yet signalled).
    bool writes_pending() const;

    int fd_ = -1;
    void* base_ = nullptr;
    size_t size_ = 0;
    uint32_t offset_ = 0;
    uint32_t stride_ = 0;
    bool synced_ = true;
    mutable uint64_t syncs_ = 0;
    mutable uint64_t unbracketed_reads_ = 0;
};

}  // namespace kiln::compositor
