// Cache keys: shader and program keys from sources, and the driver identity that scopes every disk entry.
#pragma once

#include "renderer/cache/digest.hpp"
#include "renderer/program_cache.hpp"

#include <string>
#include <vector>

namespace kiln::cache {

// Bumped whenever the on-disk layout or entry format changes: old entries then simply miss.
constexpr uint32_t cache_format_version = 1;

struct ProgramKey {
    Sha1 program{};   // SHA1(SHA1(vs) ‖ SHA1(fs) ‖ attribute bindings)
    Sha1 vertex{};    // SHA1(vertex source)
    Sha1 fragment{};  // SHA1(fragment source)
};

Sha1 shader_key(const std::string& source);
ProgramKey program_key(const renderer::ProgramSource& source);

// Everything that changes a program binary or a driver blob without changing the sources.
struct DriverIdentity {
    std::string gl_vendor;
    std::string gl_renderer;
    std::string gl_version;
    std::string egl_driver;   // EGL_MESA_query_driver, when the display has it
    std::string device;       // DRM device id (major:minor) when the display renders on one
    std::vector<int32_t> binary_formats;
    std::string build_id;

    // Reads the current context's strings; the context must be current.
    static DriverIdentity query(void* display);  // an EGLDisplay
    // The directory name a driver's entries live under.
    Sha1 hash() const;
    std::string describe() const;
};

}  // namespace kiln::cache
