// In-memory program binaries: glGetProgramBinary after the first link, glProgramBinary after that.
#include "renderer/in_memory_program_cache.hpp"

#include "renderer/program_builder.hpp"

namespace kiln::renderer {

std::string InMemoryProgramCache::key_of(const ProgramSource& source)
{
    std::string key = source.vertex;
    key += '\0';
    key += source.fragment;
    for (const auto& binding : source.attributes) {
        key += '\0';
        key += binding.name;
        key += '=';
        key += std::to_string(binding.location);
    }
    return key;
}

std::optional<ProgramResult> InMemoryProgramCache::get(const ProgramSource& source, std::string& error)
{
    const std::string key = key_of(source);
    if (auto it = binaries_.find(key); it != binaries_.end()) {
        Program program(glCreateProgram());
        glProgramBinary(program.id(), it->second.format, it->second.bytes.data(),
                        static_cast<GLsizei>(it->second.bytes.size()));
        GLint ok = GL_FALSE;
        glGetProgramiv(program.id(), GL_LINK_STATUS, &ok);
        if (ok == GL_TRUE) {
            ++loaded_from_memory_;
            return ProgramResult{std::move(program), ProgramOrigin::memory};
        }
        binaries_.erase(it);  // the driver no longer takes it: rebuild below
    }
    Program program = build_program(source, error);
    if (!program)
        return std::nullopt;
    ++linked_from_source_;
    GLint length = 0;
    glGetProgramiv(program.id(), GL_PROGRAM_BINARY_LENGTH, &length);
    if (length > 0) {
        Binary binary;
        binary.bytes.resize(static_cast<size_t>(length));
        glGetProgramBinary(program.id(), length, nullptr, &binary.format, binary.bytes.data());
        binaries_.emplace(key, std::move(binary));
    }
    return ProgramResult{std::move(program), ProgramOrigin::compiled};
}

}  // namespace kiln::renderer
