// RenderTarget: where a frame is drawn: a dma-buf (output buffer) as an EGLImage-backed framebuffer, or an
// offscreen framebuffer read back into CPU memory when the backend only takes shm buffers.
#pragma once

#include "renderer/egl_display.hpp"
#include "renderer/gl_objects.hpp"
#include "renderer/renderer_stats.hpp"
#include "renderer/types.hpp"

#include <memory>
#include <optional>
#include <string>

namespace kiln::renderer {

class RenderTarget {
public:
    static std::unique_ptr<RenderTarget> for_dmabuf(const EglDisplay& display, const DmabufAttributes& attributes,
                                                    std::string& error);
    static std::unique_ptr<RenderTarget> for_cpu(uint32_t fourcc, int32_t width, int32_t height, std::string& error);

    int32_t width() const { return width_; }
    int32_t height() const { return height_; }
    uint32_t fourcc() const { return fourcc_; }
    bool is_cpu() const { return !image_; }
    GLuint framebuffer() const { return framebuffer_.id(); }

    // CPU targets: where end() copies the frame (the output buffer's memory). Set before each frame.
    void set_destination(void* data, uint32_t stride)
    {
        destination_ = data;
        destination_stride_ = stride;
    }
    // Copies `region` of the framebuffer into the same place of the destination (CPU targets; no-op for dma-bufs).
    // The rest of the destination already holds what this framebuffer showed last time. `bgra_read` says whether
    // the driver reads GL_BGRA_EXT directly.
    bool read_back(bool bgra_read, RendererStats& stats, std::optional<Box> region = std::nullopt);

private:
    RenderTarget() = default;

    GlFramebuffer framebuffer_;
    GlRenderbuffer renderbuffer_;
    GlTexture texture_;
    EglImage image_;
    int32_t width_ = 0;
    int32_t height_ = 0;
    uint32_t fourcc_ = 0;
    void* destination_ = nullptr;
    uint32_t destination_stride_ = 0;
};

// Reads `source` (top-down target coordinates) from the bound framebuffer as `fourcc` into `data`.
bool read_framebuffer(uint32_t fourcc, uint32_t stride, Box source, void* data, bool bgra_read);

}  // namespace kiln::renderer
