// Compiling and linking GLSL into a program object, with the driver's log on failure.
#pragma once

#include "renderer/program_cache.hpp"

#include <GLES3/gl3.h>

#include <string>

namespace kiln::renderer {

// Compiles one shader; 0 with `error` set (the info log) on failure. The caller owns the shader.
GLuint compile_shader(GLenum type, const std::string& source, std::string& error);
// Compiles both stages, binds the attributes and links; an empty Program with `error` set on failure.
Program build_program(const ProgramSource& source, std::string& error);

}  // namespace kiln::renderer
