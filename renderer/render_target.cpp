// Render targets and read-back: framebuffer row 0 is the buffer's first memory row, so reads need no flip.
#include "renderer/render_target.hpp"

#include "renderer/dmabuf_image.hpp"
#include "renderer/formats.hpp"
#include "renderer/gl_formats.hpp"

#include <GLES2/gl2ext.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace kiln::renderer {
namespace {

// The 32-bit layouts of four 8-bit channels: what an 8-bit RGBA framebuffer is read back into.
bool eight_bit(uint32_t fourcc)
{
    const auto upload = gl_upload(fourcc);
    return upload && upload->type == GL_UNSIGNED_BYTE && upload->format == GL_RGBA;
}

// The 2:10:10:10 layouts: drawn into an RGB10_A2 texture and read back at 10 bits (an HDR output's capture). The
// half-float formats are for client buffers only.
bool ten_bit(uint32_t fourcc)
{
    const auto upload = gl_upload(fourcc);
    return upload && upload->type == GL_UNSIGNED_INT_2_10_10_10_REV;
}

}  // namespace

std::unique_ptr<RenderTarget> RenderTarget::for_dmabuf(const EglDisplay& display, const DmabufAttributes& attributes,
                                                       std::string& error)
{
    EglImage image = create_dmabuf_image(display, attributes, error);
    if (!image)
        return nullptr;
    if (!display.procs().image_target_renderbuffer) {
        error = "GL lacks glEGLImageTargetRenderbufferStorageOES";
        return nullptr;
    }
    std::unique_ptr<RenderTarget> target(new RenderTarget());
    target->image_ = std::move(image);
    target->width_ = attributes.width;
    target->height_ = attributes.height;
    target->fourcc_ = attributes.fourcc;
    target->renderbuffer_ = make_renderbuffer();
    glBindRenderbuffer(GL_RENDERBUFFER, target->renderbuffer_.id());
    display.procs().image_target_renderbuffer(GL_RENDERBUFFER, target->image_.get());
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    target->framebuffer_ = make_framebuffer();
    glBindFramebuffer(GL_FRAMEBUFFER, target->framebuffer_.id());
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, target->renderbuffer_.id());
    const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        error = "the dma-buf cannot be rendered to (framebuffer status " + std::to_string(status) + ")";
        return nullptr;
    }
    return target;
}

std::unique_ptr<RenderTarget> RenderTarget::for_cpu(uint32_t fourcc, int32_t width, int32_t height,
                                                    std::string& error)
{
    const auto info = format_info(fourcc);
    const bool ten = ten_bit(fourcc);
    if (!info || (!eight_bit(fourcc) && !ten)) {
        error = std::string("cannot render into ") + format_name(fourcc) + " memory";
        return nullptr;
    }
    std::unique_ptr<RenderTarget> target(new RenderTarget());
    target->width_ = width;
    target->height_ = height;
    target->fourcc_ = fourcc;
    target->texture_ = make_texture();
    glBindTexture(GL_TEXTURE_2D, target->texture_.id());
    if (ten)
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB10_A2, width, height, 0, GL_RGBA, GL_UNSIGNED_INT_2_10_10_10_REV, nullptr);
    else
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glBindTexture(GL_TEXTURE_2D, 0);
    target->framebuffer_ = make_framebuffer();
    glBindFramebuffer(GL_FRAMEBUFFER, target->framebuffer_.id());
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target->texture_.id(), 0);
    const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        error = "offscreen framebuffer incomplete (status " + std::to_string(status) + ")";
        return nullptr;
    }
    return target;
}

bool RenderTarget::read_back(bool bgra_read, RendererStats& stats, std::optional<Box> region)
{
    if (image_ || !destination_)
        return true;
    Box box = region.value_or(Box{0, 0, width_, height_});
    // Clamp to the target; an empty region reads nothing.
    const int32_t x0 = std::clamp(box.x, 0, width_);
    const int32_t y0 = std::clamp(box.y, 0, height_);
    const int32_t x1 = std::clamp(box.x + box.width, 0, width_);
    const int32_t y1 = std::clamp(box.y + box.height, 0, height_);
    if (x1 <= x0 || y1 <= y0)
        return true;
    box = Box{x0, y0, x1 - x0, y1 - y0};
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_.id());
    auto* first = static_cast<uint8_t*>(destination_) + static_cast<size_t>(y0) * destination_stride_ +
                  static_cast<size_t>(x0) * 4;
    const bool ok = read_framebuffer(fourcc_, destination_stride_, box, first, bgra_read);
    stats.readback_bytes += static_cast<uint64_t>(box.width) * static_cast<uint64_t>(box.height) * 4;
    return ok;
}

bool read_framebuffer(uint32_t fourcc, uint32_t stride, Box source, void* data, bool bgra_read)
{
    const auto info = format_info(fourcc);
    const bool ten = ten_bit(fourcc);
    if (!info || (!eight_bit(fourcc) && !ten) || stride % 4 != 0 || !data)
        return false;
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    if (ten) {
        // GLES 3 reads an RGB10_A2 framebuffer as RGBA/2_10_10_10_REV: red in the low bits, XBGR2101010's layout.
        glPixelStorei(GL_PACK_ROW_LENGTH, static_cast<GLint>(stride / 4));
        glReadPixels(source.x, source.y, source.width, source.height, GL_RGBA, GL_UNSIGNED_INT_2_10_10_10_REV, data);
        glPixelStorei(GL_PACK_ROW_LENGTH, 0);
        if (gl_upload(fourcc).value_or(GlUpload{}).swizzle_rb) {
            // XRGB/ARGB2101010 have blue in the low bits: swap the two 10-bit fields in place.
            for (int32_t y = 0; y < source.height; ++y) {
                auto* row = reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(data) + static_cast<size_t>(y) * stride);
                for (int32_t x = 0; x < source.width; ++x) {
                    const uint32_t w = row[x];
                    row[x] = (w & 0xc00ffc00u) | (w & 0x3ffu) << 20 | (w >> 20 & 0x3ffu);
                }
            }
        }
        return glGetError() == GL_NO_ERROR;
    }
    if (!gl_upload(fourcc).value_or(GlUpload{}).swizzle_rb) {
        // ABGR/XBGR8888 are R,G,B,A bytes: GL's own order.
        glPixelStorei(GL_PACK_ROW_LENGTH, static_cast<GLint>(stride / 4));
        glReadPixels(source.x, source.y, source.width, source.height, GL_RGBA, GL_UNSIGNED_BYTE, data);
        glPixelStorei(GL_PACK_ROW_LENGTH, 0);
        return glGetError() == GL_NO_ERROR;
    }
    if (bgra_read) {
        glPixelStorei(GL_PACK_ROW_LENGTH, static_cast<GLint>(stride / 4));
        glReadPixels(source.x, source.y, source.width, source.height, GL_BGRA_EXT, GL_UNSIGNED_BYTE, data);
        glPixelStorei(GL_PACK_ROW_LENGTH, 0);
        return glGetError() == GL_NO_ERROR;
    }
    // No BGRA reads: read RGBA and swap red and blue on the CPU.
    std::vector<uint8_t> rgba(static_cast<size_t>(source.width) * static_cast<size_t>(source.height) * 4);
    glReadPixels(source.x, source.y, source.width, source.height, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    for (int32_t y = 0; y < source.height; ++y) {
        auto* row = static_cast<uint8_t*>(data) + static_cast<size_t>(y) * stride;
        const uint8_t* in = rgba.data() + static_cast<size_t>(y) * static_cast<size_t>(source.width) * 4;
        for (int32_t x = 0; x < source.width; ++x) {
            row[x * 4 + 0] = in[x * 4 + 2];
            row[x * 4 + 1] = in[x * 4 + 1];
            row[x * 4 + 2] = in[x * 4 + 0];
            row[x * 4 + 3] = in[x * 4 + 3];
        }
    }
    return glGetError() == GL_NO_ERROR;
}

}  // namespace kiln::renderer
