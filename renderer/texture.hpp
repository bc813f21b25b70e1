// Texture: a client buffer as something the renderer samples: uploaded shm memory or an imported dma-buf.
#pragma once

#include "renderer/egl_display.hpp"
#include "renderer/gl_objects.hpp"
#include "renderer/renderer_stats.hpp"
#include "renderer/types.hpp"
#include "renderer/yuv.hpp"

#include <array>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::renderer {

struct FormatInfo;

class Texture {
public:
    // Uploads the whole buffer. `stats` must outlive the texture (the Renderer owns both). With `cpu_copy` the
    // pixels are copied into CPU memory kiln owns instead (for CpuCompositor), and GL gets them only when a GL draw
    // first samples the texture (ensure_gl), from then on both are kept current.
    static std::unique_ptr<Texture> from_shm(const ShmDescription& desc, RendererStats& stats, std::string& error,
                                             bool cpu_copy = false);
    // Reads a client's shm memory while it is mapped: calls `use` with its first pixel and its stride; false if the
    // memory could not be mapped.
    using ShmReader = std::function<bool(const std::function<void(const void* data, uint32_t stride)>& use)>;
    // An shm buffer read where it lies, through `read`: CPU composition reads the client's memory each frame (no
    // copy, as a dma-buf is sampled in place), GL gets it whole when a GL draw first samples the texture. The
    // caller keeps the client's buffer as long as the texture. Damage cannot be written into it (write_pixels
    // refuses): each commit's buffer is a texture of its own. `desc.data` is only checked, not kept.
    static std::unique_ptr<Texture> over_shm(const ShmDescription& desc, ShmReader read, RendererStats& stats,
                                             std::string& error);
    // A linear single-plane dma-buf read where it lies, through `read` (the caller's mapping of it), as over_shm
    // reads shm: no EGLImage, so no EGL. The first GL draw that samples it imports `attributes` (validated, their
    // fd kept open by the caller as long as the texture) as an EGLImage, which samples the memory in place from
    // then on; if the driver refuses it, GL gets the pixels whole, again after each contents_changed().
    static std::unique_ptr<Texture> over_dmabuf_mapping(const ShmDescription& desc, ShmReader read,
                                                        const DmabufAttributes& attributes, bool external_only,
                                                        RendererStats& stats, std::string& error);
    // Samples the dma-buf in place through an EGLImage: no copy. `attributes` must be validated already.
    // A YUV format is converted by the driver, told `encoding` as a hint (it cannot change after import).
    static std::unique_ptr<Texture> from_dmabuf(const EglDisplay& display, const DmabufAttributes& attributes,
                                                bool external_only, RendererStats& stats, std::string& error,
                                                YuvEncoding encoding = {});
    // A YUV dma-buf the driver will not import whole: one EGLImage per plane (R8 luma, GR88 or R8 chroma), sampled
    // as separate textures and converted by kiln's shader. `attributes` must be validated already.
    static std::unique_ptr<Texture> from_dmabuf_planes(const EglDisplay& display, const DmabufAttributes& attributes,
                                                       YuvEncoding encoding, RendererStats& stats,
                                                       std::string& error);
    // The same plane textures filled from memory (tightly packed rows), for warming the YUV programs.
    static std::unique_ptr<Texture> from_yuv_memory(uint32_t fourcc, int32_t width, int32_t height,
                                                    const std::array<const void*, 3>& planes, std::string& error);

    int32_t width() const { return width_; }
    int32_t height() const { return height_; }
    uint32_t fourcc() const { return fourcc_; }
    bool opaque() const { return !has_alpha_; }
    bool external() const { return target_ != GL_TEXTURE_2D; }
    bool swizzle_rb() const { return swizzle_rb_; }
    bool from_dmabuf() const { return static_cast<bool>(image_); }
    GLenum target() const { return target_; }
    GLuint id() const { return texture_.id(); }

    // Sampled plane by plane (YUV converted by kiln's shader): plane 0 is id(), the chroma planes follow.
    bool through_planes() const { return plane_count_ > 1; }
    uint32_t plane_count() const { return plane_count_; }
    GLuint plane_id(uint32_t index) const { return index == 0 ? texture_.id() : chroma_[index - 1].texture.id(); }
    const YuvLayout& yuv_layout() const { return layout_; }
    YuvEncoding yuv_encoding() const { return encoding_; }
    AlphaMode alpha_mode() const { return encoding_.alpha; }
    // Takes effect on the next draw for a texture sampled through planes; a driver-converted YUV texture keeps the
    // encoding it was imported with (false unless they are the same). The alpha mode takes effect on any texture.
    bool set_yuv_encoding(YuvEncoding encoding);

    // Uploads `region` of shm memory whose first pixel is at `data`; other texels keep their contents. Refuses a
    // stride shorter than the texture's rows, and rows that end past `span` bytes from `data` (0: span unknown).
    bool write_pixels(uint32_t stride, Box region, const void* data, size_t span = 0);

    // The CPU copy of an shm texture made with `cpu_copy` (rows of cpu_stride() bytes), else nullptr.
    const uint8_t* cpu_pixels() const { return cpu_pixels_.empty() ? nullptr : cpu_pixels_.data(); }
    uint32_t cpu_stride() const { return cpu_stride_; }
    // A texture made by over_shm: its pixels are the client's, read through read_in_place.
    bool in_place() const { return static_cast<bool>(reader_); }
    bool read_in_place(const std::function<void(const void* data, uint32_t stride)>& use) const
    {
        return reader_ && reader_(use);
    }
    // Makes the GL texture of a CPU copy (or of a mapped dma-buf, an EGLImage of it on `display`) on its first GL
    // use; false if GL refused it.
    bool ensure_gl(const EglDisplay& display);
    // The client's memory under an in-place texture changed (a dma-buf committed again): GL's copy of it, if it
    // has one, is fetched whole again at its next GL draw. Nothing for other textures (an EGLImage is the memory).
    void contents_changed()
    {
        if (reader_ && !image_)
            gl_ready_ = false;
    }

private:
    // A texture of an shm buffer's size and format, its pixels not yet anywhere (from_shm and over_shm fill them).
    static std::unique_ptr<Texture> shm_shell(const ShmDescription& desc, const FormatInfo& info, RendererStats& stats);
    // over_shm and over_dmabuf_mapping: memory read in place through `read`.
    static std::unique_ptr<Texture> over_memory(const ShmDescription& desc, ShmReader read, RendererStats& stats,
                                                std::string& error);
    Texture() = default;
    void allocate_gl();
    bool upload(uint32_t stride, Box region, const void* data);

    struct ChromaPlane {
        GlTexture texture;
        EglImage image;
    };

    GlTexture texture_;
    EglImage image_;
    std::array<ChromaPlane, 2> chroma_{};
    uint32_t plane_count_ = 1;
    YuvLayout layout_{};
    YuvEncoding encoding_{};
    GLenum target_ = GL_TEXTURE_2D;
    int32_t width_ = 0;
    int32_t height_ = 0;
    uint32_t fourcc_ = 0;
    bool has_alpha_ = false;
    bool swizzle_rb_ = false;
    RendererStats* stats_ = nullptr;
    std::vector<uint8_t> cpu_pixels_;
    uint32_t cpu_stride_ = 0;
    ShmReader reader_;  // over_shm, over_dmabuf_mapping: where the pixels are
    std::optional<DmabufAttributes> lazy_import_;  // over_dmabuf_mapping: imported at the first GL draw
    bool lazy_external_ = false;
    bool gl_ready_ = true;  // false while only the CPU copy exists
};

}  // namespace kiln::renderer
