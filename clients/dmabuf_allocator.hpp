// DmabufAllocator: real dma-bufs for the demo client, from GBM, udmabuf or the system dma-heap (or a plain memfd
// for hosts without any of them), with a way to write pixels into them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

struct gbm_device;
struct gbm_bo;

namespace kiln::clients {

enum class DmabufSource { gbm, udmabuf, heap, memfd };

struct DmabufAllocation {
    int fd = -1;
    uint32_t fourcc = 0;
    uint32_t stride = 0;
    uint32_t offset = 0;
    uint32_t chroma_offset = 0;  // NV12: where the interleaved UV plane starts (same fd, same stride)
    uint64_t modifier = 0;  // linear
    uint64_t size = 0;
    gbm_bo* bo = nullptr;   // GBM buffers are written through gbm_bo_map (their fd may be read-only)
    int memfd = -1;         // udmabuf: the memfd behind it, mapped for writing
    ~DmabufAllocation();
};

class DmabufAllocator {
public:
    // Opens the source; nullptr with `error` (e.g. no /dev/udmabuf here) when it does not exist on this machine.
    static std::unique_ptr<DmabufAllocator> open(DmabufSource source, const std::string& device, std::string& error);
    ~DmabufAllocator();

    std::unique_ptr<DmabufAllocation> allocate(uint32_t width, uint32_t height, uint32_t fourcc, std::string& error);
    // Fills the whole buffer with one XRGB colour (NV12: grey of the colour's green channel), bracketed by
    // DMA_BUF_IOCTL_SYNC where the fd is a dma-buf, unless `bracket_with_sync` is false: that ioctl waits for the
    // buffer's fences, and a client that plays the producer of a pending fence must write without waiting for it.
    bool fill(DmabufAllocation& buffer, uint32_t width, uint32_t height, uint32_t xrgb, std::string& error,
              bool bracket_with_sync = true);
    const char* name() const;

private:
    DmabufAllocator() = default;
    DmabufSource source_ = DmabufSource::memfd;
    int device_fd_ = -1;
    gbm_device* gbm_ = nullptr;
};

}  // namespace kiln::clients
