// Texture: a client buffer as something the renderer samples: uploaded shm memory or an imported dma-buf.
#pragma once

#include "renderer/egl_display.hpp"
#include "renderer/gl_objects.hpp"
#include "renderer/renderer_stats.hpp"
#include "renderer/types.hpp"

#include <memory>
#include <string>

namespace kiln::renderer {

class Texture {
public:
    // Uploads the whole buffer. `stats` must outlive the texture (the Renderer owns both).
    static std::unique_ptr<Texture> from_shm(const ShmDescription& desc, RendererStats& stats, std::string& error);
    // Samples the dma-buf in place through an EGLImage: no copy. `attributes` must be validated already.
    static std::unique_ptr<Texture> from_dmabuf(const EglDisplay& display, const DmabufAttributes& attributes,
                                                bool external_only, RendererStats& stats, std::string& error);

    int32_t width() const { return width_; }
    int32_t height() const { return height_; }
    uint32_t fourcc() const { return fourcc_; }
    bool opaque() const { return !has_alpha_; }
    bool external() const { return target_ != GL_TEXTURE_2D; }
    bool swizzle_rb() const { return swizzle_rb_; }
    bool from_dmabuf() const { return static_cast<bool>(image_); }
    GLenum target() const { return target_; }
    GLuint id() const { return texture_.id(); }

    // Uploads `region` of shm memory whose first pixel is at `data`; other texels keep their contents. Refuses a
    // stride shorter than the texture's rows, and rows that end past `span` bytes from `data` (0: span unknown).
    bool write_pixels(uint32_t stride, Box region, const void* data, size_t span = 0);

private:
    Texture() = default;

    GlTexture texture_;
    EglImage image_;
    GLenum target_ = GL_TEXTURE_2D;
    int32_t width_ = 0;
    int32_t height_ = 0;
    uint32_t fourcc_ = 0;
    bool has_alpha_ = false;
    bool swizzle_rb_ = false;
    RendererStats* stats_ = nullptr;
};

}  // namespace kiln::renderer
