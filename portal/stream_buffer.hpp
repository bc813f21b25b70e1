// StreamBuffer: one of a stream's PipeWire buffers that kiln captures into in place (a dma-buf or a memfd shm
// image), with the wl_buffer kiln knows it by and what it lacks of the newest frame.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "dmabuf_buffers.hpp"
#include "output_capture.hpp"
#include "shm_image.hpp"

namespace portal {

struct StreamBuffer {
    std::unique_ptr<DmabufBuffer> dmabuf;  // one of the two
    std::unique_ptr<ShmImage> shm;
    int width = 0, height = 0;  // the size it was made for: after a resize it is not captured into
    // What this buffer lacks of the newest frame: regions that changed in frames captured into other buffers
    // since this one was filled (all of it where `whole`).
    bool whole = true;
    std::vector<Rect> missed;

    wl_buffer* buffer() const { return dmabuf ? dmabuf->buffer() : shm ? shm->buffer() : nullptr; }
};

}  // namespace portal
