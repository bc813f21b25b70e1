// Key derivation. Keys are SHA-1 of length-prefixed fields, so concatenations cannot collide by shifting bytes.
#include "renderer/cache/program_key.hpp"

#include <EGL/egl.h>

#include <EGL/eglext.h>
#include <GLES3/gl3.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>

#ifndef KILN_BUILD_ID
#define KILN_BUILD_ID "unknown"
#endif

namespace kiln::cache {

Sha1 shader_key(const std::string& source)
{
    return sha1(source);
}

ProgramKey program_key(const renderer::ProgramSource& source)
{
    ProgramKey key;
    key.vertex = shader_key(source.vertex);
    key.fragment = shader_key(source.fragment);
    Sha1Builder builder;
    builder.add(key.vertex).add(key.fragment);
    for (const auto& binding : source.attributes) {
        builder.add_field(binding.name);
        builder.add_field(std::to_string(binding.location));
    }
    key.program = builder.finish();
    return key;
}

DriverIdentity DriverIdentity::query(EGLDisplay display)
{
    DriverIdentity id;
    auto text = [](GLenum name) {
        const auto* s = reinterpret_cast<const char*>(glGetString(name));
        return std::string(s ? s : "");
    };
    id.gl_vendor = text(GL_VENDOR);
    id.gl_renderer = text(GL_RENDERER);
    id.gl_version = text(GL_VERSION);
    GLint count = 0;
    glGetIntegerv(GL_NUM_PROGRAM_BINARY_FORMATS, &count);
    id.binary_formats.resize(static_cast<size_t>(count > 0 ? count : 0));
    if (count > 0)
        glGetIntegerv(GL_PROGRAM_BINARY_FORMATS, id.binary_formats.data());
    const char* exts = eglQueryString(display, EGL_EXTENSIONS);
    if (exts && std::string_view(exts).find("EGL_MESA_query_driver") != std::string_view::npos) {
        auto get_name =
            reinterpret_cast<PFNEGLGETDISPLAYDRIVERNAMEPROC>(eglGetProcAddress("eglGetDisplayDriverName"));
        if (get_name) {
            const char* name = get_name(display);
            id.egl_driver = name ? name : "";
        }
    }
    id.build_id = KILN_BUILD_ID;
    return id;
}

Sha1 DriverIdentity::hash() const
{
    Sha1Builder builder;
    builder.add_field(std::to_string(cache_format_version));
    builder.add_field(gl_vendor).add_field(gl_renderer).add_field(gl_version);
    builder.add_field(egl_driver).add_field(device).add_field(build_id);
    for (int32_t format : binary_formats)
        builder.add_field(std::to_string(format));
    return builder.finish();
}

std::string DriverIdentity::describe() const
{
    return gl_renderer + " / " + gl_version + (egl_driver.empty() ? "" : " / " + egl_driver);
}

}  // namespace kiln::cache
