// Which EGL device kiln opens when EGL_EXT_device_enumeration lists several: a hardware vendor's before Mesa's
// software device (llvmpipe), decided from what each device says of itself before any is initialised.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::renderer {

// What eglQueryDeviceStringEXT says of one device; empty where the device does not answer.
struct EglDeviceInfo {
    std::string extensions;   // EGL_EXTENSIONS: EGL_MESA_device_software, EGL_EXT_device_drm_render_node, ...
    std::string driver_name;  // EGL_DRIVER_NAME_EXT (EGL_EXT_device_persistent_id): "nvidia", "swrast"
    std::string renderer;     // EGL_RENDERER_EXT: "NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)"
};

enum class DeviceClass {
    hardware_render_node,  // a hardware device with a DRM render node (Mesa's iris/radeonsi, NVIDIA with /dev/dri)
    hardware,              // a vendor's device with no render node (NVIDIA's EGL device on a machine with no /dev/dri)
    software,              // EGL_MESA_device_software, or a device naming a software rasteriser
};

// True when the space-separated extension list `list` names `name` whole (not as a prefix of a longer name).
bool in_extension_list(std::string_view list, std::string_view name);

// True for Mesa's software drivers (EGL_MESA_query_driver or EGL_DRIVER_NAME_EXT names).
bool is_software_driver(std::string_view driver);

DeviceClass classify_device(const EglDeviceInfo& device);

// Indices into `devices` in the order kiln tries them: hardware with a render node, other hardware, then software;
// enumeration order within each class. A hardware device whose driver turns out to be software once initialised
// (kms_swrast behind a render node) is refused by the caller, which then tries the next.
std::vector<size_t> device_try_order(std::span<const EglDeviceInfo> devices);

}  // namespace kiln::renderer
