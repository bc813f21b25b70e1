// Program: the one GL call a linked program's owner makes, deleting it.
#include "renderer/program_cache.hpp"

#include <GLES3/gl3.h>

namespace kiln::renderer {

void Program::reset()
{
    if (id_ != 0)
        glDeleteProgram(id_);
    id_ = 0;
}

}  // namespace kiln::renderer
