// EGL attribute list for a dma-buf: one fd/offset/pitch (and modifier) triple per plane.
#include "renderer/dmabuf_image.hpp"

#include "renderer/formats.hpp"

#include <array>
#include <vector>

namespace kiln::renderer {
namespace {

struct PlaneAttribs {
    EGLint fd, offset, pitch, modifier_lo, modifier_hi;
};

constexpr std::array<PlaneAttribs, max_planes> plane_attribs{{
    {EGL_DMA_BUF_PLANE0_FD_EXT, EGL_DMA_BUF_PLANE0_OFFSET_EXT, EGL_DMA_BUF_PLANE0_PITCH_EXT,
     EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE0_MODIFIER_HI_EXT},
    {EGL_DMA_BUF_PLANE1_FD_EXT, EGL_DMA_BUF_PLANE1_OFFSET_EXT, EGL_DMA_BUF_PLANE1_PITCH_EXT,
     EGL_DMA_BUF_PLANE1_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE1_MODIFIER_HI_EXT},
    {EGL_DMA_BUF_PLANE2_FD_EXT, EGL_DMA_BUF_PLANE2_OFFSET_EXT, EGL_DMA_BUF_PLANE2_PITCH_EXT,
     EGL_DMA_BUF_PLANE2_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE2_MODIFIER_HI_EXT},
    {EGL_DMA_BUF_PLANE3_FD_EXT, EGL_DMA_BUF_PLANE3_OFFSET_EXT, EGL_DMA_BUF_PLANE3_PITCH_EXT,
     EGL_DMA_BUF_PLANE3_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE3_MODIFIER_HI_EXT},
}};

}  // namespace

EglImage create_dmabuf_image(const EglDisplay& display, const DmabufAttributes& attributes, std::string& error,
                             YuvEncoding encoding)
{
    if (!display.can_import_dmabuf()) {
        error = std::string("the ") + display.kind_name() + " EGL display cannot import dma-bufs";
        return {};
    }
    const bool explicit_modifier = attributes.modifier != modifier_invalid;
    if (explicit_modifier && !display.has_extension("EGL_EXT_image_dma_buf_import_modifiers")) {
        error = "explicit modifiers need EGL_EXT_image_dma_buf_import_modifiers";
        return {};
    }
    std::vector<EGLint> attribs{EGL_WIDTH, attributes.width, EGL_HEIGHT, attributes.height,
                                EGL_LINUX_DRM_FOURCC_EXT, static_cast<EGLint>(attributes.fourcc)};
    for (uint32_t i = 0; i < attributes.plane_count && i < max_planes; ++i) {
        const auto& names = plane_attribs[i];
        const auto& plane = attributes.planes[i];
        attribs.insert(attribs.end(), {names.fd, plane.fd, names.offset, static_cast<EGLint>(plane.offset),
                                       names.pitch, static_cast<EGLint>(plane.stride)});
        if (explicit_modifier)
            attribs.insert(attribs.end(),
                           {names.modifier_lo, static_cast<EGLint>(attributes.modifier & 0xffffffffu),
                            names.modifier_hi, static_cast<EGLint>(attributes.modifier >> 32)});
    }
    EGLint color_space = EGL_ITU_REC601_EXT;
    if (encoding.space == YuvColorSpace::bt709)
        color_space = EGL_ITU_REC709_EXT;
    else if (encoding.space == YuvColorSpace::bt2020)
        color_space = EGL_ITU_REC2020_EXT;
    if (const auto info = format_info(attributes.fourcc); info && info->yuv)
        attribs.insert(attribs.end(),
                       {EGL_YUV_COLOR_SPACE_HINT_EXT, color_space,
                        EGL_SAMPLE_RANGE_HINT_EXT,
                        encoding.range == YuvRange::full ? EGL_YUV_FULL_RANGE_EXT : EGL_YUV_NARROW_RANGE_EXT});
    attribs.insert(attribs.end(), {EGL_IMAGE_PRESERVED_KHR, EGL_TRUE, EGL_NONE});

    const auto& procs = display.procs();
    EGLImageKHR image = procs.create_image(display.handle(), EGL_NO_CONTEXT, EGL_LINUX_DMA_BUF_EXT, nullptr,
                                           attribs.data());
    if (image == EGL_NO_IMAGE_KHR) {
        error = "eglCreateImageKHR refused the dma-buf (EGL error 0x" + [] {
            char buf[8];
            std::snprintf(buf, sizeof buf, "%04x", eglGetError());
            return std::string(buf);
        }() + ")";
        return {};
    }
    return EglImage(display.handle(), image, procs.destroy_image);
}

}  // namespace kiln::renderer
