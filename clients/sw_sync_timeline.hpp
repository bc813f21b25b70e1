// SwSyncTimeline: a sw_sync timeline (test-controlled fences from debugfs), and putting one of its fences into a
// dma-buf's implicit-sync reservation as the write that readers must wait for.
#pragma once

#include "clients/unique_fd.hpp"

#include <cstdint>
#include <string>

namespace kiln::clients {

class SwSyncTimeline {
public:
    // Opens a new timeline (/sys/kernel/debug/sync/sw_sync), or adopts an inherited timeline fd (`inherited_fd` >= 0:
    // the test holds it too, so a fence outlives this process). Empty with `error` when there is none.
    static SwSyncTimeline open(int inherited_fd, std::string& error);

    explicit operator bool() const { return static_cast<bool>(fd_); }
    // A sync_file that signals when the timeline reaches `created()` (which this call advances by one).
    UniqueFd create_fence(std::string& error);
    // Advances the timeline to `value` (no further than the fences made), signalling every fence up to it.
    bool signal_through(uint32_t value, std::string& error);
    // Timeline values: fences made, and the value reached.
    uint32_t created() const { return created_; }
    uint32_t signalled() const { return signalled_; }

private:
    UniqueFd fd_;
    uint32_t created_ = 0;
    uint32_t signalled_ = 0;
};

// DMA_BUF_IOCTL_IMPORT_SYNC_FILE with DMA_BUF_SYNC_WRITE: the fence becomes the buffer's pending write.
bool import_write_fence(int dmabuf_fd, int sync_file_fd, std::string& error);

// Whether a sync_file has signalled (it polls readable then).
bool fence_signalled(int sync_file_fd);

}  // namespace kiln::clients
