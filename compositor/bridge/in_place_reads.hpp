// InPlaceReads: who the bridge tells that a texture reads a client's buffer where it lies (a dma-buf, or shm composed
// on the CPU) and when that texture ends, so the buffer's release is decided outside the bridge
// (output/sync/buffer_releases.hpp). The bridge itself only keeps the memory it reads alive while it reads it.
#pragma once

#include "compositor/wlr.hpp"

namespace kiln::compositor {

class InPlaceReads {
public:
    virtual ~InPlaceReads() = default;
    // `texture` reads `source` (the client's wl_buffer) in place from now on; called while wlroots still holds
    // `source` for the commit, before it lets go. `shm`: an shm buffer, not a dma-buf.
    virtual void began(wlr_texture* texture, wlr_buffer* source, bool shm) = 0;
    // `texture` ends (its wlr_client_buffer with it: every holder of the commit's buffer has let go).
    virtual void ended(wlr_texture* texture) = 0;
};

}  // namespace kiln::compositor
