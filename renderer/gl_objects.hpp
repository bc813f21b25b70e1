// RAII owners for GL and EGL objects; each deletes its object when it dies (with the context current).
#pragma once

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>

#include <utility>

namespace kiln::renderer {

// One GL name deleted by `Delete`; move-only.
template <void (*Delete)(GLuint)>
class GlName {
public:
    GlName() = default;
    explicit GlName(GLuint id) : id_(id) {}
    GlName(GlName&& other) noexcept : id_(std::exchange(other.id_, 0)) {}
    GlName& operator=(GlName&& other) noexcept
    {
        if (this != &other) {
            reset();
            id_ = std::exchange(other.id_, 0);
        }
        return *this;
    }
    GlName(const GlName&) = delete;
    GlName& operator=(const GlName&) = delete;
    ~GlName() { reset(); }

    GLuint id() const { return id_; }
    explicit operator bool() const { return id_ != 0; }
    void reset()
    {
        if (id_ != 0)
            Delete(id_);
        id_ = 0;
    }

private:
    GLuint id_ = 0;
};

namespace detail {
inline void delete_texture(GLuint id) { glDeleteTextures(1, &id); }
inline void delete_framebuffer(GLuint id) { glDeleteFramebuffers(1, &id); }
inline void delete_renderbuffer(GLuint id) { glDeleteRenderbuffers(1, &id); }
inline void delete_buffer(GLuint id) { glDeleteBuffers(1, &id); }
}  // namespace detail

using GlTexture = GlName<detail::delete_texture>;
using GlFramebuffer = GlName<detail::delete_framebuffer>;
using GlRenderbuffer = GlName<detail::delete_renderbuffer>;
using GlBuffer = GlName<detail::delete_buffer>;

inline GlTexture make_texture()
{
    GLuint id = 0;
    glGenTextures(1, &id);
    return GlTexture(id);
}
inline GlFramebuffer make_framebuffer()
{
    GLuint id = 0;
    glGenFramebuffers(1, &id);
    return GlFramebuffer(id);
}
inline GlRenderbuffer make_renderbuffer()
{
    GLuint id = 0;
    glGenRenderbuffers(1, &id);
    return GlRenderbuffer(id);
}

// An EGLImage and the display that destroys it.
class EglImage {
public:
    EglImage() = default;
    EglImage(EGLDisplay display, EGLImageKHR image, PFNEGLDESTROYIMAGEKHRPROC destroy)
        : display_(display), image_(image), destroy_(destroy)
    {
    }
    EglImage(EglImage&& other) noexcept
        : display_(other.display_), image_(std::exchange(other.image_, EGL_NO_IMAGE_KHR)), destroy_(other.destroy_)
    {
    }
    EglImage& operator=(EglImage&& other) noexcept
    {
        if (this != &other) {
            reset();
            display_ = other.display_;
            image_ = std::exchange(other.image_, EGL_NO_IMAGE_KHR);
            destroy_ = other.destroy_;
        }
        return *this;
    }
    EglImage(const EglImage&) = delete;
    EglImage& operator=(const EglImage&) = delete;
    ~EglImage() { reset(); }

    EGLImageKHR get() const { return image_; }
    explicit operator bool() const { return image_ != EGL_NO_IMAGE_KHR; }
    void reset()
    {
        if (image_ != EGL_NO_IMAGE_KHR && destroy_)
            destroy_(display_, image_);
        image_ = EGL_NO_IMAGE_KHR;
    }

private:
    EGLDisplay display_ = EGL_NO_DISPLAY;
    EGLImageKHR image_ = EGL_NO_IMAGE_KHR;
    PFNEGLDESTROYIMAGEKHRPROC destroy_ = nullptr;
};

}  // namespace kiln::renderer
