// Where the GL drivers keep their own shader caches (Mesa's, NVIDIA's): inside kiln's cache directory, so that a
// cache directory given to kiln holds everything kiln's start-up writes, and kiln-cache clear empties all of it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kiln::cache {

// Mesa's shader cache lives in <kiln cache dir>/mesa, NVIDIA's in <kiln cache dir>/nvidia (the driver adds GLCache/).
inline constexpr const char* mesa_cache_subdir = "mesa";
inline constexpr const char* nvidia_cache_subdir = "nvidia";
inline constexpr const char* driver_cache_subdirs[] = {mesa_cache_subdir, nvidia_cache_subdir};

// The size each driver is told to keep its cache under when kiln places it and the user named no size: kiln's own
// disk budget. kiln never deletes a driver's files itself (their format is the driver's); the driver prunes them.
inline constexpr uint64_t driver_cache_max_bytes = 64u << 20;

// Points each driver's shader cache at its subdirectory of `kiln_cache_dir`, made 0700, where the user chose nothing:
// - Mesa: MESA_SHADER_CACHE_DIR (unless it or the older MESA_GLSL_CACHE_DIR is set), one file per entry
//   (MESA_DISK_CACHE_MULTI_FILE) unless the user chose a layout, MESA_SHADER_CACHE_MAX_SIZE unless set;
// - NVIDIA: __GL_SHADER_DISK_CACHE_PATH (unless it is set, or __GL_SHADER_DISK_CACHE=0 turned the cache off),
//   __GL_SHADER_DISK_CACHE_SIZE unless set.
// When kiln's directory cannot be used, the caches are turned off rather than left to write elsewhere. Every
// variable kiln sets is named in KILN_DRIVER_CACHE_VARIABLES, so that children get the environment the user gave
// (environment_for_children). Sets environment variables: call it before EGL is initialised and before any thread
// starts. Returns what it did, for a debug log.
std::string keep_driver_cache_in(const std::filesystem::path& kiln_cache_dir);

// `environment` (an environ-style list) without the variables keep_driver_cache_in set: a program kiln starts keeps
// its own driver caches where the user's environment says, not in kiln's directory under kiln's size limit.
std::vector<std::string> environment_for_children(const char* const* environment);

// What a driver's cache directory holds, counted without following a symbolic link.
struct DriverCacheUsage {
    std::string subdir;
    bool present = false;
    uint64_t files = 0;
    uint64_t bytes = 0;
    std::vector<std::string> problems;  // symbolic links, other users' files, unreadable directories
};

// One entry per subdirectory in driver_cache_subdirs, for the cache at `kiln_cache_dir`.
std::vector<DriverCacheUsage> driver_cache_usage(const std::filesystem::path& kiln_cache_dir);

}  // namespace kiln::cache
