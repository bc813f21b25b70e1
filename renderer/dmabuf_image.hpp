// Turns a validated dma-buf description into an EGLImage (EGL_EXT_image_dma_buf_import).
#pragma once

#include "renderer/egl_display.hpp"
#include "renderer/gl_objects.hpp"
#include "renderer/types.hpp"
#include "renderer/yuv.hpp"

#include <string>

namespace kiln::renderer {

// The description must already have passed validate_dmabuf: this only builds the attribute list and calls EGL.
// A YUV format the driver converts itself gets `encoding` as its colour-space and range hints.
EglImage create_dmabuf_image(const EglDisplay& display, const DmabufAttributes& attributes, std::string& error,
                             YuvEncoding encoding = {});

}  // namespace kiln::renderer
