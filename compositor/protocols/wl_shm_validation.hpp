// WlShmValidation: refuses wl_shm buffers whose stride is shorter than a row of pixels, a check libwayland leaves out.
//
// libwayland's wl_shm_pool.create_buffer checks stride >= width (pixels, not bytes) and that height rows of stride
// bytes fit the pool. A 256-pixel ARGB8888 buffer with stride 256 passes, yet each row is 1024 bytes: an upload reads
// up to three quarters of the buffer from beyond the pool (another mapping's memory, or a crash). kiln answers such a
// request with wl_shm.error.invalid_stride on the pool, as libwayland does for its own checks.
#pragma once

#include "compositor/wlr.hpp"

namespace kiln::compositor {

class WlShmValidation {
public:
    explicit WlShmValidation(wl_display* display);
    ~WlShmValidation();
    WlShmValidation(const WlShmValidation&) = delete;
    WlShmValidation& operator=(const WlShmValidation&) = delete;

private:
    static void on_message(void* data, wl_protocol_logger_type direction,
                           const wl_protocol_logger_message* message) noexcept;

    wl_protocol_logger* logger_ = nullptr;
};

}  // namespace kiln::compositor
