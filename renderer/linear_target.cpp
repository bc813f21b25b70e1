// The FP16 intermediate of linear-light frames: an RGBA16F texture bound to a framebuffer.
#include "renderer/linear_target.hpp"

namespace kiln::renderer {

std::unique_ptr<LinearTarget> LinearTarget::create(int32_t width, int32_t height, std::string& error)
{
    std::unique_ptr<LinearTarget> target(new LinearTarget());
    target->width_ = width;
    target->height_ = height;
    while (glGetError() != GL_NO_ERROR) {
    }
    target->texture_ = make_texture();
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, target->texture_.id());
    // The encode pass reads texels with texelFetch: no filtering, no mipmaps.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA16F, width, height);
    glBindTexture(GL_TEXTURE_2D, 0);
    if (glGetError() != GL_NO_ERROR) {
        error = "cannot allocate an RGBA16F texture of " + std::to_string(width) + "x" + std::to_string(height);
        return nullptr;
    }
    target->framebuffer_ = make_framebuffer();
    glBindFramebuffer(GL_FRAMEBUFFER, target->framebuffer_.id());
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target->texture_.id(), 0);
    const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        error = "the driver cannot render into RGBA16F (framebuffer status " + std::to_string(status) + ")";
        return nullptr;
    }
    return target;
}

}  // namespace kiln::renderer
