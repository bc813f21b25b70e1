// GLSL compile + link helpers shared by every ProgramCache implementation.
#include "renderer/program_builder.hpp"

#include <vector>

namespace kiln::renderer {

GLuint compile_shader(GLenum type, const std::string& source, std::string& error)
{
    GLuint shader = glCreateShader(type);
    const char* text = source.c_str();
    glShaderSource(shader, 1, &text, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok != GL_TRUE) {
        GLint length = 0;
        glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
        std::vector<char> log(static_cast<size_t>(length > 0 ? length : 1));
        glGetShaderInfoLog(shader, static_cast<GLsizei>(log.size()), nullptr, log.data());
        error = std::string(type == GL_VERTEX_SHADER ? "vertex" : "fragment") + " shader: " + log.data();
        glDeleteShader(shader);
        return 0;
    }
    return shader;
}

Program build_program(const ProgramSource& source, std::string& error)
{
    GLuint vs = compile_shader(GL_VERTEX_SHADER, source.vertex, error);
    if (!vs)
        return {};
    GLuint fs = compile_shader(GL_FRAGMENT_SHADER, source.fragment, error);
    if (!fs) {
        glDeleteShader(vs);
        return {};
    }
    Program program(glCreateProgram());
    glAttachShader(program.id(), vs);
    glAttachShader(program.id(), fs);
    for (const auto& binding : source.attributes)
        glBindAttribLocation(program.id(), binding.location, binding.name.c_str());
    glLinkProgram(program.id());
    glDetachShader(program.id(), vs);
    glDetachShader(program.id(), fs);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = GL_FALSE;
    glGetProgramiv(program.id(), GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE) {
        GLint length = 0;
        glGetProgramiv(program.id(), GL_INFO_LOG_LENGTH, &length);
        std::vector<char> log(static_cast<size_t>(length > 0 ? length : 1));
        glGetProgramInfoLog(program.id(), static_cast<GLsizei>(log.size()), nullptr, log.data());
        error = std::string("link '") + source.name + "': " + log.data();
        return {};
    }
    return program;
}

}  // namespace kiln::renderer
