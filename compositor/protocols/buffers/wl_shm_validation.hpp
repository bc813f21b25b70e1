// WlShmValidation: refuses wl_shm buffers whose stride is shorter than a row of pixels, a check libwayland leaves out.
//
// libwayland's wl_shm_pool.create_buffer checks stride >= width (pixels, not bytes) and that height rows of stride
// bytes fit the pool. A 256-pixel ARGB8888 buffer with stride 256 passes, yet each row is 1024 bytes: an upload reads
// up to three quarters of the buffer from beyond the pool (another mapping's memory, or a crash). kiln answers such a
// request with wl_shm.error.invalid_stride on the pool, as libwayland does for its own checks.
#pragma once

#include "compositor/protocol_kit/request_hooks.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class WlShmValidation {
public:
    // Watches wl_shm_pool.create_buffer through `hooks`; must be destroyed before them.
    explicit WlShmValidation(RequestHooks& hooks);
    WlShmValidation(const WlShmValidation&) = delete;
    WlShmValidation& operator=(const WlShmValidation&) = delete;

private:
    static void check(const wl_protocol_logger_message& message);

    RequestTable::Hook hook_;
};

}  // namespace kiln::compositor
