// Texture creation and damage-only uploads.
#include "renderer/texture.hpp"

#include "renderer/dmabuf_image.hpp"
#include "renderer/formats.hpp"
#include "renderer/gl_formats.hpp"

#include <GLES2/gl2ext.h>

#include <cstring>

namespace kiln::renderer {
namespace {

// Whether rows [y, y + height) of pixels [x, x + width) lie within the memory a stride and span describe: each row
// no longer than the stride, the last row's end within `span` (when known). A client chooses all of these.
bool rows_fit(uint32_t stride, uint32_t bpp, int32_t x, int32_t y, int32_t width, int32_t height, size_t span)
{
    const uint64_t row_end = (static_cast<uint64_t>(x) + static_cast<uint64_t>(width)) * bpp;
    if (row_end > stride)
        return false;
    const uint64_t end = (static_cast<uint64_t>(y) + static_cast<uint64_t>(height) - 1) * stride + row_end;
    return span == 0 || end <= span;
}

}  // namespace

std::unique_ptr<Texture> Texture::from_shm(const ShmDescription& desc, RendererStats& stats, std::string& error,
                                           bool cpu_copy)
{
    const auto info = format_info(desc.fourcc);
    if (!info || !gl_upload(desc.fourcc)) {
        error = std::string("format ") + format_name(desc.fourcc) + " cannot be uploaded";
        return nullptr;
    }
    if (desc.width < 1 || desc.height < 1 || !desc.data) {
        error = "empty shm buffer";
        return nullptr;
    }
    if (!rows_fit(desc.stride, info->planes[0].bytes_per_pixel, 0, 0, desc.width, desc.height, desc.span)) {
        error = "shm rows of " + std::to_string(desc.width) + " pixels with stride " + std::to_string(desc.stride) +
                " leave the buffer's memory";
        return nullptr;
    }
    std::unique_ptr<Texture> texture = shm_shell(desc, *info, stats);
    if (cpu_copy) {
        // Rows padded to 4 bytes: pixman's images need it.
        const uint32_t row = static_cast<uint32_t>(desc.width) * info->planes[0].bytes_per_pixel;
        texture->cpu_stride_ = (row + 3) & ~3u;
        texture->cpu_pixels_.resize(static_cast<size_t>(texture->cpu_stride_) * static_cast<size_t>(desc.height));
        texture->gl_ready_ = false;
    } else {
        texture->allocate_gl();
    }
    if (!texture->write_pixels(desc.stride, Box{0, 0, desc.width, desc.height}, desc.data, desc.span)) {
        error = "uploading the shm buffer failed";
        return nullptr;
    }
    ++stats.shm_textures;
    return texture;
}

std::unique_ptr<Texture> Texture::shm_shell(const ShmDescription& desc, const FormatInfo& info, RendererStats& stats)
{
    std::unique_ptr<Texture> texture(new Texture());
    texture->width_ = desc.width;
    texture->height_ = desc.height;
    texture->fourcc_ = desc.fourcc;
    texture->has_alpha_ = info.has_alpha;
    texture->swizzle_rb_ = gl_upload(desc.fourcc).value_or(GlUpload{}).swizzle_rb;
    texture->stats_ = &stats;
    return texture;
}

std::unique_ptr<Texture> Texture::over_shm(const ShmDescription& desc, ShmReader read, RendererStats& stats,
                                           std::string& error)
{
    std::unique_ptr<Texture> texture = over_memory(desc, std::move(read), stats, error);
    if (texture)
        ++stats.shm_textures;
    return texture;
}

std::unique_ptr<Texture> Texture::over_dmabuf_mapping(const ShmDescription& desc, ShmReader read,
                                                      const DmabufAttributes& attributes, bool external_only,
                                                      RendererStats& stats, std::string& error)
{
    std::unique_ptr<Texture> texture = over_memory(desc, std::move(read), stats, error);
    if (!texture)
        return nullptr;
    texture->lazy_import_ = attributes;
    texture->lazy_external_ = external_only;
    ++stats.dmabuf_mapped;
    return texture;
}

std::unique_ptr<Texture> Texture::over_memory(const ShmDescription& desc, ShmReader read, RendererStats& stats,
                                              std::string& error)
{
    const auto info = format_info(desc.fourcc);
    if (!info || !gl_upload(desc.fourcc)) {
        error = std::string("format ") + format_name(desc.fourcc) + " cannot be sampled";
        return nullptr;
    }
    if (desc.width < 1 || desc.height < 1 || !desc.data || !read) {
        error = "empty buffer";
        return nullptr;
    }
    const uint32_t bpp = info->planes[0].bytes_per_pixel;
    // CpuCompositor's images need rows of whole 32-bit words, as the GL upload needs whole pixels.
    if (desc.stride % 4 != 0 || !rows_fit(desc.stride, bpp, 0, 0, desc.width, desc.height, desc.span)) {
        error = "rows of " + std::to_string(desc.width) + " pixels with stride " + std::to_string(desc.stride) +
                " leave the buffer's memory or are not 4-byte aligned";
        return nullptr;
    }
    std::unique_ptr<Texture> texture = shm_shell(desc, *info, stats);
    texture->reader_ = std::move(read);
    texture->gl_ready_ = false;
    return texture;
}

void Texture::allocate_gl()
{
    const auto upload = gl_upload(fourcc_);
    texture_ = make_texture();
    glBindTexture(GL_TEXTURE_2D, id());
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    // Allocate, then upload through the same path as damage so the byte count means one thing.
    glTexImage2D(GL_TEXTURE_2D, 0, static_cast<GLint>(upload->internal_format), width_, height_, 0, upload->format,
                 upload->type, nullptr);
    glBindTexture(GL_TEXTURE_2D, 0);
    if (stats_)
        ++stats_->shm_gl_textures;
}

bool Texture::ensure_gl(const EglDisplay& display)
{
    if (gl_ready_)
        return true;
    if (lazy_import_) {
        // A mapped dma-buf: an EGLImage samples it where it lies, as an imported one (no copy per commit).
        std::string error;
        EglImage image = create_dmabuf_image(display, *lazy_import_, error);
        lazy_import_.reset();
        if (image) {
            const GLenum target = lazy_external_ ? GL_TEXTURE_EXTERNAL_OES : GL_TEXTURE_2D;
            GlTexture texture = make_texture();
            glBindTexture(target, texture.id());
            glTexParameteri(target, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
            glTexParameteri(target, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
            glTexParameteri(target, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
            glTexParameteri(target, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
            display.procs().image_target_texture(target, image.get());
            const bool bound = glGetError() == GL_NO_ERROR;
            glBindTexture(target, 0);
            if (bound) {
                texture_ = std::move(texture);
                image_ = std::move(image);
                target_ = target;
                swizzle_rb_ = false;  // EGL samples the dma-buf in its own format: channels arrive as RGBA
                gl_ready_ = true;
                return true;
            }
        }
        // Not importable after all: GL gets the pixels from the mapping below.
    }
    if (reader_) {
        bool uploaded = false;
        if (!reader_([&](const void* data, uint32_t stride) {
                if (!texture_.id())
                    allocate_gl();  // a texture fetched again after contents_changed() keeps its GL storage
                uploaded = upload(stride, Box{0, 0, width_, height_}, data);
            }))
            return false;
        if (stats_)
            stats_->shm_upload_bytes += static_cast<uint64_t>(height_) * static_cast<uint64_t>(width_) *
                                        format_info(fourcc_)->planes[0].bytes_per_pixel;
        gl_ready_ = uploaded;
        return uploaded;
    }
    allocate_gl();
    gl_ready_ = true;
    return upload(cpu_stride_, Box{0, 0, width_, height_}, cpu_pixels_.data());
}

std::unique_ptr<Texture> Texture::from_dmabuf(const EglDisplay& display, const DmabufAttributes& attributes,
                                              bool external_only, RendererStats& stats, std::string& error,
                                              YuvEncoding encoding)
{
    EglImage image = create_dmabuf_image(display, attributes, error, encoding);
    if (!image)
        return nullptr;
    const auto info = format_info(attributes.fourcc);
    std::unique_ptr<Texture> texture(new Texture());
    texture->texture_ = make_texture();
    texture->image_ = std::move(image);
    // YUV and external-only layouts are sampled through the driver's conversion (samplerExternalOES).
    texture->target_ = (external_only || (info && info->yuv)) ? GL_TEXTURE_EXTERNAL_OES : GL_TEXTURE_2D;
    texture->width_ = attributes.width;
    texture->height_ = attributes.height;
    texture->fourcc_ = attributes.fourcc;
    texture->encoding_ = encoding;
    texture->has_alpha_ = info && info->has_alpha;
    // EGL samples the dma-buf in its own format: channels already arrive as RGBA.
    texture->swizzle_rb_ = false;
    texture->stats_ = &stats;

    glBindTexture(texture->target_, texture->id());
    glTexParameteri(texture->target_, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(texture->target_, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(texture->target_, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(texture->target_, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    display.procs().image_target_texture(texture->target_, texture->image_.get());
    const GLenum gl_error = glGetError();
    glBindTexture(texture->target_, 0);
    if (gl_error != GL_NO_ERROR) {
        error = "binding the dma-buf image to a texture failed (GL error " + std::to_string(gl_error) + ")";
        return nullptr;
    }
    ++stats.dmabuf_imports;
    return texture;
}

bool Texture::write_pixels(uint32_t stride, Box region, const void* data, size_t span)
{
    if (image_ || through_planes() || reader_)
        return false;  // dma-buf and over_shm textures are the client's memory: nothing to upload; YUV planes have
                       // no shm path
    const auto info = format_info(fourcc_);
    if (!info || !data)
        return false;
    const uint32_t bpp = info->planes[0].bytes_per_pixel;
    if (stride % bpp != 0 || region.x < 0 || region.y < 0 || region.width < 1 || region.height < 1 ||
        region.x + region.width > width_ || region.y + region.height > height_)
        return false;
    // Rows as long as the texture's (which holds the region): a shorter stride makes GL read rows past the memory.
    if (!rows_fit(stride, bpp, 0, region.y, width_, region.height, span))
        return false;

    if (!cpu_pixels_.empty()) {
        const auto* from = static_cast<const uint8_t*>(data) + static_cast<size_t>(region.y) * stride +
                           static_cast<size_t>(region.x) * bpp;
        uint8_t* to = cpu_pixels_.data() + static_cast<size_t>(region.y) * cpu_stride_ +
                      static_cast<size_t>(region.x) * bpp;
        const size_t row = static_cast<size_t>(region.width) * bpp;
        for (int32_t y = 0; y < region.height; ++y, from += stride, to += cpu_stride_)
            std::memcpy(to, from, row);
    }
    if (stats_)
        stats_->shm_upload_bytes += static_cast<uint64_t>(region.width) * static_cast<uint64_t>(region.height) * bpp;
    return !gl_ready_ || upload(stride, region, data);
}

// glTexSubImage2D of `region` from memory laid out like the client's (the region's pixels at their own offsets).
bool Texture::upload(uint32_t stride, Box region, const void* data)
{
    const auto info = format_info(fourcc_);
    const uint32_t bpp = info->planes[0].bytes_per_pixel;
    glBindTexture(GL_TEXTURE_2D, texture_.id());
    glPixelStorei(GL_UNPACK_ALIGNMENT, bpp % 4 == 0 ? 4 : (bpp == 2 ? 2 : 1));
    glPixelStorei(GL_UNPACK_ROW_LENGTH, static_cast<GLint>(stride / bpp));
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, region.x);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, region.y);
    const auto gl = gl_upload(fourcc_);
    glTexSubImage2D(GL_TEXTURE_2D, 0, region.x, region.y, region.width, region.height, gl->format, gl->type, data);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, 0);
    glBindTexture(GL_TEXTURE_2D, 0);
    return glGetError() == GL_NO_ERROR;
}

}  // namespace kiln::renderer
