// Where the GL driver keeps its own shader cache: inside kiln's cache directory, so that a cache directory given to
// kiln holds everything kiln's start-up writes, and kiln-cache clear empties all of it.
#pragma once

#include <filesystem>
#include <string>

namespace kiln::cache {

// The driver's shader cache lives in <kiln cache dir>/mesa.
inline constexpr const char* mesa_cache_subdir = "mesa";

// Points Mesa's shader cache (MESA_SHADER_CACHE_DIR) at <kiln_cache_dir>/mesa, made 0700, unless the user already
// chose a place (MESA_SHADER_CACHE_DIR or the older MESA_GLSL_CACHE_DIR), with one file per entry
// (MESA_DISK_CACHE_MULTI_FILE) unless the user chose a layout. When kiln's directory cannot be used,
// Mesa's cache is turned off rather than left to write elsewhere. Sets environment variables: call it before EGL is
// initialised and before any thread starts. Returns what it did, for a debug log.
std::string keep_driver_cache_in(const std::filesystem::path& kiln_cache_dir);

}  // namespace kiln::cache
