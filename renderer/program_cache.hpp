// The interface every GL program of the renderer comes through, so the renderer never compiles shaders itself.
//
// The renderer describes a program by its sources and attribute bindings; a ProgramCache returns a linked program
// object the caller owns. Implementations: InMemoryProgramCache (renderer/, compile + keep binaries in memory) and
// the tiered cache in renderer/cache/ (memory LRU, disk tiers, driver blob cache). All calls happen on the thread
// whose EGL context is current.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln::renderer {

struct AttributeBinding {
    std::string name;
    uint32_t location = 0;

    bool operator==(const AttributeBinding&) const = default;
};

// What a program is made of. `usage_bits` says where it is used (a pass or output format bit), so a precompile list
// can record it; it is not part of the program's identity.
struct ProgramSource {
    std::string name;  // for logs only, e.g. "texture_rgba"
    std::string vertex;
    std::string fragment;
    std::vector<AttributeBinding> attributes;
    uint32_t usage_bits = 0;
};

// A linked GL program object (its GLuint name). Move-only; deletes the program when it dies (the context must be
// current then).
class Program {
public:
    Program() = default;
    explicit Program(uint32_t id) : id_(id) {}
    Program(Program&& other) noexcept : id_(std::exchange(other.id_, 0)) {}
    Program& operator=(Program&& other) noexcept
    {
        if (this != &other) {
            reset();
            id_ = std::exchange(other.id_, 0);
        }
        return *this;
    }
    Program(const Program&) = delete;
    Program& operator=(const Program&) = delete;
    ~Program() { reset(); }

    uint32_t id() const { return id_; }
    explicit operator bool() const { return id_ != 0; }
    uint32_t release() { return std::exchange(id_, 0); }
    void reset();

private:
    uint32_t id_ = 0;
};

// Where a program came from: proof that a warm start compiled nothing.
enum class ProgramOrigin { compiled, memory, disk };

struct ProgramResult {
    Program program;
    ProgramOrigin origin = ProgramOrigin::compiled;
};

class ProgramCache {
public:
    virtual ~ProgramCache() = default;

    // Returns a linked program for `source`, or std::nullopt with `error` set when it cannot be built.
    virtual std::optional<ProgramResult> get(const ProgramSource& source, std::string& error) = 0;

    // Count of programs this cache had to compile and link from source (kiln --stats: programs.linked_from_source).
    virtual uint64_t linked_from_source() const = 0;

    // The renderer's context exists and is current (called before the first get): a cache can learn the driver's
    // identity and install the driver blob cache now. `device` names the DRM device ("major:minor") or is empty;
    // `display` is the EGLDisplay (a pointer, kept plain so that this header carries no EGL).
    virtual void context_ready(void* display, const std::string& device) { (void)display, (void)device; }
    // The context is about to go: release GL objects the cache holds while it is still current.
    virtual void context_lost() {}
};

}  // namespace kiln::renderer
