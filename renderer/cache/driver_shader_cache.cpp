// The drivers' shader caches (Mesa's, NVIDIA's) placed inside kiln's cache directory through their environment
// variables, kept from kiln's children, and counted for the stats.
#include "renderer/cache/driver_shader_cache.hpp"

#include "renderer/cache/disk_tier.hpp"

#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string_view>
#include <unistd.h>

namespace kiln::cache {

namespace {

// Names the variables kiln set (comma-separated), for environment_for_children.
constexpr const char* marker = "KILN_DRIVER_CACHE_VARIABLES";

bool set_by_user(const char* name)
{
    const char* value = std::getenv(name);
    return value && *value;
}

// Sets `name` and remembers that kiln did.
void place(std::vector<std::string>& placed, const char* name, const std::string& value)
{
    setenv(name, value.c_str(), 1);
    placed.emplace_back(name);
}

std::string placed_mesa(const std::filesystem::path& dir, std::vector<std::string>& placed)
{
    place(placed, "MESA_SHADER_CACHE_DIR", dir.string());
    if (!set_by_user("MESA_SHADER_CACHE_MAX_SIZE"))
        place(placed, "MESA_SHADER_CACHE_MAX_SIZE", std::to_string(driver_cache_max_bytes >> 20) + "M");
    // Mesa's default layout, a database of 50 parts, creates every part when the display opens on an empty directory:
    // 40-80 ms of a cold start on llvmpipe (measured: egl_init_ms). One file per entry creates only what is stored,
    // and little is: kiln's blob cache serves the driver once the context exists.
    if (set_by_user("MESA_DISK_CACHE_SINGLE_FILE") || set_by_user("MESA_DISK_CACHE_MULTI_FILE") ||
        set_by_user("MESA_DISK_CACHE_DATABASE"))
        return "Mesa's shader cache: " + dir.string() + " (layout as the environment says)";
    place(placed, "MESA_DISK_CACHE_MULTI_FILE", "1");
    return "Mesa's shader cache: " + dir.string() + " (one file per entry)";
}

std::string placed_nvidia(const std::filesystem::path& dir, std::vector<std::string>& placed)
{
    // NVIDIA's driver adds GLCache/ and does not create a directory it was given: kiln made it.
    place(placed, "__GL_SHADER_DISK_CACHE_PATH", dir.string());
    if (!set_by_user("__GL_SHADER_DISK_CACHE_SIZE"))
        place(placed, "__GL_SHADER_DISK_CACHE_SIZE", std::to_string(driver_cache_max_bytes));
    return "NVIDIA's shader cache: " + dir.string();
}

void count_tree(int dir, const std::string& path, DriverCacheUsage& usage, int depth)
{
    for (const DirectoryItem& item : list_directory(dir)) {
        const std::string item_path = path + "/" + item.name;
        if (item.symlink) {
            usage.problems.push_back(item_path + " is a symbolic link");
        } else if (item.owner != geteuid()) {
            usage.problems.push_back(item_path + " belongs to another user");
        } else if (item.regular) {
            ++usage.files;
            usage.bytes += item.size;
        } else if (item.directory && depth < 16) {
            const int sub = openat(dir, item.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0) {
                usage.problems.push_back(item_path + ": " + std::strerror(errno));
                continue;
            }
            UniqueFd owned(sub);
            count_tree(sub, item_path, usage, depth + 1);
        }
    }
}

}  // namespace

std::string keep_driver_cache_in(const std::filesystem::path& kiln_cache_dir)
{
    const bool mesa_chosen = set_by_user("MESA_SHADER_CACHE_DIR") || set_by_user("MESA_GLSL_CACHE_DIR");
    const char* nvidia_switch = std::getenv("__GL_SHADER_DISK_CACHE");
    const bool nvidia_off = nvidia_switch && std::string_view(nvidia_switch) == "0";
    const bool nvidia_chosen = set_by_user("__GL_SHADER_DISK_CACHE_PATH") || nvidia_off;
    std::vector<std::string> notes;
    if (mesa_chosen)
        notes.emplace_back("Mesa's shader cache: left where MESA_SHADER_CACHE_DIR says");
    if (nvidia_chosen)
        notes.emplace_back(nvidia_off ? "NVIDIA's shader cache: off (__GL_SHADER_DISK_CACHE=0)"
                                      : "NVIDIA's shader cache: left where __GL_SHADER_DISK_CACHE_PATH says");
    std::vector<std::string> placed;
    if (kiln_cache_dir.empty()) {
        if (!mesa_chosen || !nvidia_chosen)
            notes.emplace_back("driver shader caches: left at the drivers' defaults (no kiln cache directory)");
    } else if (!mesa_chosen || !nvidia_chosen) {
        std::string error;
        Opened root = open_cache_root(kiln_cache_dir, true, true, error);
        for (const char* subdir : driver_cache_subdirs) {
            const bool is_mesa = std::string_view(subdir) == mesa_cache_subdir;
            if (is_mesa ? mesa_chosen : nvidia_chosen)
                continue;
            Opened opened;
            if (root.fd)
                opened = open_private_dir(root.fd.get(), subdir, true, geteuid());
            if (!opened.fd) {
                // The driver would fall back to ~/.cache, or follow a link kiln refused: off is what --cache-dir
                // promises.
                const std::string why = error.empty() ? opened.why : error;
                const char* off = is_mesa ? "MESA_SHADER_CACHE_DISABLE" : "__GL_SHADER_DISK_CACHE";
                if (!set_by_user(off))
                    place(placed, off, is_mesa ? "true" : "0");
                notes.push_back(std::string(is_mesa ? "Mesa's" : "NVIDIA's") + " shader cache: off (" + why + ")");
                continue;
            }
            const std::filesystem::path dir = kiln_cache_dir / subdir;
            notes.push_back(is_mesa ? placed_mesa(dir, placed) : placed_nvidia(dir, placed));
        }
    }
    std::string names;
    for (const auto& name : placed)
        names += (names.empty() ? "" : ",") + name;
    if (!names.empty())
        setenv(marker, names.c_str(), 1);
    std::string text;
    for (const auto& note : notes)
        text += (text.empty() ? "" : "; ") + note;
    return text;
}

std::vector<std::string> environment_for_children(const char* const* environment)
{
    const char* names = std::getenv(marker);
    const std::string_view list = names ? names : "";
    auto placed_by_kiln = [&](std::string_view name) {
        if (name == marker)
            return true;
        size_t start = 0;
        while (start <= list.size()) {
            const size_t end = std::min(list.find(',', start), list.size());
            if (list.substr(start, end - start) == name)
                return true;
            start = end + 1;
        }
        return false;
    };
    std::vector<std::string> out;
    for (const char* const* entry = environment; entry && *entry; ++entry) {
        const std::string_view text = *entry;
        if (!placed_by_kiln(text.substr(0, text.find('='))))
            out.emplace_back(text);
    }
    return out;
}

std::vector<DriverCacheUsage> driver_cache_usage(const std::filesystem::path& kiln_cache_dir)
{
    std::vector<DriverCacheUsage> out;
    std::string error;
    Opened root = open_cache_root(kiln_cache_dir, false, true, error);
    for (const char* subdir : driver_cache_subdirs) {
        DriverCacheUsage usage;
        usage.subdir = subdir;
        if (root.fd) {
            Opened dir = open_private_dir(root.fd.get(), subdir, false, geteuid());
            usage.present = static_cast<bool>(dir.fd);
            if (dir.fd)
                count_tree(dir.fd.get(), (kiln_cache_dir / subdir).string(), usage, 0);
            else if (dir.status == OpenStatus::refused)
                usage.problems.push_back((kiln_cache_dir / subdir).string() + " " + dir.why);
        }
        out.push_back(std::move(usage));
    }
    return out;
}

}  // namespace kiln::cache
