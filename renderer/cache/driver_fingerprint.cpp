// Reading the driver fingerprint: stat() and readlink() only, no device is opened and no driver loaded.
#include "renderer/cache/driver_fingerprint.hpp"

#include <EGL/egl.h>
#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <xf86drm.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <vector>

namespace kiln::cache {
namespace {

// Bumped when what the profile holds, or how the probe decides it, changes.
constexpr int profile_version = 1;

std::string device_number(dev_t dev)
{
    return std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
}

// Path, size and modification time (ns) of a file, through symbolic links; "missing" when there is none.
std::string file_identity(const std::string& path)
{
    char resolved[PATH_MAX];
    struct stat st {};
    if (!realpath(path.c_str(), resolved) || stat(resolved, &st) != 0)
        return path + " missing";
    return std::string(resolved) + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec);
}

std::vector<std::string> sorted_names(const std::string& dir)
{
    std::vector<std::string> names;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d))
            if (e->d_name[0] != '.')
                names.emplace_back(e->d_name);
        closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
}

// The kernel driver behind a DRM node, from sysfs ("vkms", "i915", ...).
std::string kernel_driver(const std::string& node)
{
    char target[PATH_MAX];
    const std::string link = "/sys/class/drm/" + node + "/device/driver";
    const ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
    if (n <= 0)
        return "none";
    target[n] = '\0';
    return std::filesystem::path(target).filename().string();
}

// Where the EGL library kiln is linked with lives; Mesa's vendor library and drivers sit beside it.
std::string egl_library_dir()
{
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&eglGetProcAddress), &info) && info.dli_fname)
        return std::filesystem::path(info.dli_fname).parent_path().string();
    return "/usr/lib";
}

}  // namespace

std::string driver_fingerprint(int drm_fd)
{
    std::string out = "kiln display profile " + std::to_string(profile_version) + " build " KILN_BUILD_ID "\n";

    if (drm_fd >= 0) {
        struct stat st {};
        out += "backend device " + (fstat(drm_fd, &st) == 0 ? device_number(st.st_rdev) : std::string("?"));
        if (drmVersion* version = drmGetVersion(drm_fd)) {
            out += std::string(" ") + (version->name ? version->name : "?");
            drmFreeVersion(version);
        }
        out += "\n";
    } else {
        out += "backend device none\n";
    }
    // EGL's device platform enumerates every DRM node: a GPU that appears changes the display kiln would pick.
    for (const std::string& node : sorted_names("/dev/dri")) {
        struct stat st {};
        const std::string path = "/dev/dri/" + node;
        if (stat(path.c_str(), &st) != 0 || !S_ISCHR(st.st_mode))
            continue;
        out += "node " + node + " " + device_number(st.st_rdev) + " " + kernel_driver(node) + "\n";
    }

    const std::string lib = egl_library_dir();
    // NVIDIA's vendor library: its name resolves to the versioned file, so a driver upgrade changes the fingerprint
    // (its glvnd JSON, below, stays the same across versions).
    for (const char* name : {"libEGL.so.1", "libEGL_mesa.so.0", "libgbm.so.1", "libglapi.so.0", "libEGL_nvidia.so.0"})
        out += "file " + file_identity(lib + "/" + name) + "\n";
    for (const std::string& name : sorted_names(lib))
        if (name.starts_with("libgallium"))
            out += "file " + file_identity(lib + "/" + name) + "\n";
    for (const std::string& name : sorted_names(lib + "/dri"))
        if (name.ends_with("_dri.so"))
            out += "file " + file_identity(lib + "/dri/" + name) + "\n";
    // glvnd picks a vendor library from these (a proprietary driver installs one).
    for (const char* dir : {"/etc/glvnd/egl_vendor.d", "/usr/share/glvnd/egl_vendor.d"})
        for (const std::string& name : sorted_names(dir))
            out += "file " + file_identity(std::string(dir) + "/" + name) + "\n";

    for (const char* var : {"LIBGL_ALWAYS_SOFTWARE", "GALLIUM_DRIVER", "MESA_LOADER_DRIVER_OVERRIDE", "EGL_PLATFORM",
                            "LIBGL_DRIVERS_PATH", "GBM_BACKEND", "__EGL_VENDOR_LIBRARY_FILENAMES",
                            "__EGL_VENDOR_LIBRARY_DIRS", "__GLX_VENDOR_LIBRARY_NAME", "LD_LIBRARY_PATH",
                            "MESA_EXTENSION_OVERRIDE", "LP_NATIVE_VECTOR_WIDTH"})
        if (const char* value = std::getenv(var))
            out += std::string("env ") + var + "=" + value + "\n";
    return out;
}

}  // namespace kiln::cache
