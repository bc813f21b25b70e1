// InMemoryProgramCache: compiles on first use and keeps linked binaries in memory for the life of the process.
#pragma once

#include "renderer/program_cache.hpp"

#include <GLES3/gl3.h>

#include <map>
#include <string>
#include <vector>

namespace kiln::renderer {

class InMemoryProgramCache final : public ProgramCache {
public:
    std::optional<ProgramResult> get(const ProgramSource& source, std::string& error) override;
    uint64_t linked_from_source() const override { return linked_from_source_; }
    uint64_t loaded_from_memory() const { return loaded_from_memory_; }

private:
    struct Binary {
        GLenum format = 0;
        std::vector<uint8_t> bytes;
    };
    // Keyed by everything that makes a program: both sources and the attribute bindings.
    static std::string key_of(const ProgramSource& source);

    std::map<std::string, Binary> binaries_;
    uint64_t linked_from_source_ = 0;
    uint64_t loaded_from_memory_ = 0;
};

}  // namespace kiln::renderer
