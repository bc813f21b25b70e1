// CaptureDmabuf: what ext-image-copy-capture offers for dma-buf frames (the renderer's DRM device and the formats and
// modifiers it can render into), whether a client's buffer is one of them, and the fence that says a capture drawn
// into it is done.
#pragma once

#include "compositor/wlr.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace kiln::renderer {
class RenderFence;
}  // namespace kiln::renderer

namespace kiln::compositor {

class RenderBridge;

struct CaptureDmabuf {
    dev_t device = 0;
    // fourcc → modifiers; 8888 RGB formats only (what a capture is drawn as), never one the driver imports for
    // sampling only (external-only).
    std::vector<std::pair<uint32_t, std::vector<uint64_t>>> formats;

    // On `device` (linux-dmabuf's main device: the backend's, or the renderer's render node) where the renderer
    // imports dma-bufs; nullopt if it imports none of the formats above.
    static std::optional<CaptureDmabuf> of(RenderBridge& bridge, dev_t device);
    // `buffer` is a dma-buf of `width`×`height` in one of the formats and modifiers above.
    bool fits(wlr_buffer* buffer, int width, int height) const;
};

// A fence after everything drawn so far (the capture just drawn into a client's dma-buf), flushed; nullptr where the
// display has no fence extension, after glFinish (then the frame is done already).
std::shared_ptr<renderer::RenderFence> capture_fence(RenderBridge& bridge);

}  // namespace kiln::compositor
