// Mesa's shader cache placed inside kiln's cache directory through Mesa's environment variables.
#include "renderer/cache/driver_shader_cache.hpp"

#include "renderer/cache/disk_tier.hpp"

#include <cstdlib>
#include <unistd.h>

namespace kiln::cache {

namespace {

bool set_by_user(const char* name)
{
    const char* value = std::getenv(name);
    return value && *value;
}

}  // namespace

std::string keep_driver_cache_in(const std::filesystem::path& kiln_cache_dir)
{
    if (set_by_user("MESA_SHADER_CACHE_DIR") || set_by_user("MESA_GLSL_CACHE_DIR"))
        return "driver shader cache: left where MESA_SHADER_CACHE_DIR says";
    if (kiln_cache_dir.empty())
        return "driver shader cache: left at Mesa's default (no kiln cache directory)";
    std::string error;
    Opened root = open_cache_root(kiln_cache_dir, true, true, error);
    Opened mesa;
    if (root.fd)
        mesa = open_private_dir(root.fd.get(), mesa_cache_subdir, true, geteuid());
    if (!mesa.fd) {
        // Mesa would fall back to ~/.cache, or follow a link kiln refused: off is what --cache-dir promises.
        setenv("MESA_SHADER_CACHE_DISABLE", "true", 0);
        return "driver shader cache: off (" + (error.empty() ? mesa.why : error) + ")";
    }
    const std::filesystem::path dir = kiln_cache_dir / mesa_cache_subdir;
    setenv("MESA_SHADER_CACHE_DIR", dir.c_str(), 1);
    // Mesa's default layout, a database of 50 parts, creates every part when the display opens on an empty directory:
    // 40-80 ms of a cold start on llvmpipe (measured: egl_init_ms). One file per entry creates only what is stored,
    // and little is: kiln's blob cache serves the driver once the context exists.
    if (set_by_user("MESA_DISK_CACHE_SINGLE_FILE") || set_by_user("MESA_DISK_CACHE_MULTI_FILE") ||
        set_by_user("MESA_DISK_CACHE_DATABASE"))
        return "driver shader cache: " + dir.string() + " (layout as the environment says)";
    setenv("MESA_DISK_CACHE_MULTI_FILE", "1", 1);
    return "driver shader cache: " + dir.string() + " (one file per entry)";
}

}  // namespace kiln::cache
