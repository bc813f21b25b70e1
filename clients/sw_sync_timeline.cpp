// sw_sync through its debugfs ioctls; the ioctl numbers are the kernel's (drivers/dma-buf/sw_sync.c keeps them
// private, so they are spelled out here).
#include "clients/sw_sync_timeline.hpp"

#include <fcntl.h>
#include <linux/dma-buf.h>
#include <poll.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace kiln::clients {
namespace {

struct SwSyncCreateFenceData {
    uint32_t value;
    char name[32];
    int32_t fence;
};
constexpr unsigned long sw_sync_ioc_create_fence = _IOWR('W', 0, SwSyncCreateFenceData);
constexpr unsigned long sw_sync_ioc_inc = _IOW('W', 1, uint32_t);

std::string errno_text(const char* what)
{
    return std::string(what) + ": " + std::strerror(errno);
}

}  // namespace

SwSyncTimeline SwSyncTimeline::open(int inherited_fd, std::string& error)
{
    SwSyncTimeline timeline;
    if (inherited_fd >= 0) {
        timeline.fd_ = UniqueFd(inherited_fd);
        return timeline;
    }
    timeline.fd_ = UniqueFd(::open("/sys/kernel/debug/sync/sw_sync", O_RDWR | O_CLOEXEC));
    if (!timeline.fd_)
        error = errno_text("/sys/kernel/debug/sync/sw_sync (sw_sync.ko and debugfs)");
    return timeline;
}

UniqueFd SwSyncTimeline::create_fence(std::string& error)
{
    SwSyncCreateFenceData data{};
    data.value = created_ + 1;
    std::snprintf(data.name, sizeof(data.name), "kiln-fence-%u", data.value);
    data.fence = -1;
    if (ioctl(fd_.get(), sw_sync_ioc_create_fence, &data) != 0) {
        error = errno_text("SW_SYNC_IOC_CREATE_FENCE");
        return UniqueFd();
    }
    created_ = data.value;
    return UniqueFd(data.fence);
}

bool SwSyncTimeline::signal_through(uint32_t value, std::string& error)
{
    if (value > created_)
        value = created_;
    if (value <= signalled_)
        return true;
    uint32_t step = value - signalled_;
    if (ioctl(fd_.get(), sw_sync_ioc_inc, &step) != 0) {
        error = errno_text("SW_SYNC_IOC_INC");
        return false;
    }
    signalled_ = value;
    return true;
}

bool import_write_fence(int dmabuf_fd, int sync_file_fd, std::string& error)
{
    dma_buf_import_sync_file import{};
    import.flags = DMA_BUF_SYNC_WRITE;
    import.fd = sync_file_fd;
    if (ioctl(dmabuf_fd, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &import) != 0) {
        error = errno_text("DMA_BUF_IOCTL_IMPORT_SYNC_FILE");
        return false;
    }
    return true;
}

bool fence_signalled(int sync_file_fd)
{
    pollfd p{sync_file_fd, POLLIN, 0};
    return poll(&p, 1, 0) == 1;
}

}  // namespace kiln::clients
