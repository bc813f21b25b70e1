// RendererStats: what the renderer counts, for `kiln --stats` and for tests that prove no copy happened.
#pragma once

#include <cstdint>

namespace kiln::renderer {

struct RendererStats {
    uint64_t shm_upload_bytes = 0;   // bytes copied from client shm memory into textures
    uint64_t shm_textures = 0;
    uint64_t shm_gl_textures = 0;    // GL storage allocated for shm textures (each one the buffer's whole size)
    uint64_t dmabuf_imports = 0;     // EGLImages made from client dma-bufs
    uint64_t dmabuf_mapped = 0;      // client dma-bufs read in place by CPU composition instead (no EGLImage)
    uint64_t dmabuf_rejected = 0;    // descriptions refused before reaching EGL
    uint64_t dmabuf_targets = 0;     // output buffers wrapped as render targets
    uint64_t cpu_targets = 0;        // GL render buffers made for output buffers in CPU memory (each full-size)
    uint64_t readback_bytes = 0;     // bytes read back into CPU render targets
    uint64_t frames = 0;
    uint64_t linear_frames = 0;   // frames composed in linear light through the FP16 intermediate
    uint64_t linear_targets = 0;  // FP16 intermediates allocated (again only when the target size changes)
};

}  // namespace kiln::renderer
