// Turns a validated dma-buf description into an EGLImage (EGL_EXT_image_dma_buf_import).
#pragma once

#include "renderer/egl_display.hpp"
#include "renderer/gl_objects.hpp"
#include "renderer/types.hpp"

#include <string>

namespace kiln::renderer {

// The description must already have passed validate_dmabuf: this only builds the attribute list and calls EGL.
EglImage create_dmabuf_image(const EglDisplay& display, const DmabufAttributes& attributes, std::string& error);

}  // namespace kiln::renderer
