// Textures sampled plane by plane: a YUV buffer as R8/GR88 textures (one EGLImage each) for kiln's own conversion.
#include "renderer/texture.hpp"

#include "renderer/dmabuf_image.hpp"
#include "renderer/formats.hpp"

namespace kiln::renderer {
namespace {

void set_sampling(GLuint id)
{
    glBindTexture(GL_TEXTURE_2D, id);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
}

}  // namespace

std::unique_ptr<Texture> Texture::from_dmabuf_planes(const EglDisplay& display, const DmabufAttributes& attributes,
                                                     YuvEncoding encoding, RendererStats& stats, std::string& error)
{
    const auto layout = renderer::yuv_layout(attributes.fourcc, attributes.width, attributes.height);
    if (!layout || attributes.plane_count != layout->plane_count) {
        error = std::string("format ") + format_name(attributes.fourcc) + " cannot be sampled plane by plane";
        return nullptr;
    }
    std::unique_ptr<Texture> texture(new Texture());
    texture->width_ = attributes.width;
    texture->height_ = attributes.height;
    texture->fourcc_ = attributes.fourcc;
    texture->plane_count_ = layout->plane_count;
    texture->layout_ = *layout;
    texture->encoding_ = encoding;
    texture->stats_ = &stats;
    for (uint32_t i = 0; i < layout->plane_count; ++i) {
        EglImage image = create_dmabuf_image(display, yuv_plane_attributes(attributes, *layout, i), error);
        if (!image) {
            error = "plane " + std::to_string(i) + ": " + error;
            return nullptr;
        }
        GlTexture gl_texture = make_texture();
        set_sampling(gl_texture.id());
        display.procs().image_target_texture(GL_TEXTURE_2D, image.get());
        const GLenum gl_error = glGetError();
        glBindTexture(GL_TEXTURE_2D, 0);
        if (gl_error != GL_NO_ERROR) {
            error = "binding plane " + std::to_string(i) + " to a texture failed (GL error " +
                    std::to_string(gl_error) + ")";
            return nullptr;
        }
        if (i == 0) {
            texture->texture_ = std::move(gl_texture);
            texture->image_ = std::move(image);
        } else {
            texture->chroma_[i - 1] = {std::move(gl_texture), std::move(image)};
        }
    }
    ++stats.dmabuf_imports;
    return texture;
}

std::unique_ptr<Texture> Texture::from_yuv_memory(uint32_t fourcc, int32_t width, int32_t height,
                                                  const std::array<const void*, 3>& planes, std::string& error)
{
    const auto layout = renderer::yuv_layout(fourcc, width, height);
    if (!layout) {
        error = std::string("format ") + format_name(fourcc) + " is not a YUV layout kiln converts";
        return nullptr;
    }
    if (layout->depth > 8) {  // 16-bit normalised textures are not core GLES 3.0; planes of a dma-buf are
        error = std::string("format ") + format_name(fourcc) + " is sampled only from dma-bufs";
        return nullptr;
    }
    std::unique_ptr<Texture> texture(new Texture());
    texture->width_ = width;
    texture->height_ = height;
    texture->fourcc_ = fourcc;
    texture->plane_count_ = layout->plane_count;
    texture->layout_ = *layout;
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    for (uint32_t i = 0; i < layout->plane_count; ++i) {
        const YuvPlane& plane = layout->planes[i];
        const bool pairs = plane.fourcc == fourcc::gr88;
        GlTexture gl_texture = make_texture();
        set_sampling(gl_texture.id());
        glTexImage2D(GL_TEXTURE_2D, 0, pairs ? GL_RG8 : GL_R8, plane.width, plane.height, 0, pairs ? GL_RG : GL_RED,
                     GL_UNSIGNED_BYTE, planes[i]);
        glBindTexture(GL_TEXTURE_2D, 0);
        if (i == 0)
            texture->texture_ = std::move(gl_texture);
        else
            texture->chroma_[i - 1].texture = std::move(gl_texture);
    }
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    if (const GLenum gl_error = glGetError(); gl_error != GL_NO_ERROR) {
        error = "uploading YUV planes failed (GL error " + std::to_string(gl_error) + ")";
        return nullptr;
    }
    return texture;
}

bool Texture::set_yuv_encoding(YuvEncoding encoding)
{
    if (through_planes())
        encoding_ = encoding;
    else
        encoding_.alpha = encoding.alpha;  // sampling reads alpha as told, whatever imported the texture
    return encoding_ == encoding;
}

}  // namespace kiln::renderer
