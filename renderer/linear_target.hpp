// LinearTarget: the FP16 (GL_RGBA16F) texture and framebuffer a linear-light frame is composed in before one encode
// pass writes the output's encoding; the renderer keeps one while the target size matches.
#pragma once

#include "renderer/gl_objects.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace kiln::renderer {

class LinearTarget {
public:
    // nullptr, with `error`, where the driver cannot render into RGBA16F (GLES 3 needs EXT_color_buffer_half_float
    // or EXT_color_buffer_float for that). Leaves the new framebuffer bound.
    static std::unique_ptr<LinearTarget> create(int32_t width, int32_t height, std::string& error);

    int32_t width() const { return width_; }
    int32_t height() const { return height_; }
    GLuint texture() const { return texture_.id(); }
    GLuint framebuffer() const { return framebuffer_.id(); }

private:
    LinearTarget() = default;

    GlTexture texture_;
    GlFramebuffer framebuffer_;
    int32_t width_ = 0;
    int32_t height_ = 0;
};

}  // namespace kiln::renderer
