// The EGL device order: hardware before software, from the devices' own extension and name strings.
#include "renderer/egl_device_choice.hpp"

#include <algorithm>
#include <cctype>

namespace kiln::renderer {
namespace {


// The renderer string's first word, lower-cased: "llvmpipe (LLVM 15.0.6, 256 bits)" -> "llvmpipe".
std::string first_word(std::string_view text)
{
    std::string word;
    for (char c : text) {
        if (c == ' ' || c == '(')
            break;
        word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return word;
}

}  // namespace

bool in_extension_list(std::string_view list, std::string_view name)
{
    size_t pos = 0;
    while ((pos = list.find(name, pos)) != std::string_view::npos) {
        const bool start_ok = pos == 0 || list[pos - 1] == ' ';
        const size_t end = pos + name.size();
        if (start_ok && (end == list.size() || list[end] == ' '))
            return true;
        pos = end;
    }
    return false;
}

bool is_software_driver(std::string_view driver)
{
    return driver == "kms_swrast" || driver == "swrast" || driver == "llvmpipe" || driver == "softpipe";
}

DeviceClass classify_device(const EglDeviceInfo& device)
{
    if (in_extension_list(device.extensions, "EGL_MESA_device_software") || is_software_driver(device.driver_name) ||
        is_software_driver(first_word(device.renderer)))
        return DeviceClass::software;
    return in_extension_list(device.extensions, "EGL_EXT_device_drm_render_node") ? DeviceClass::hardware_render_node
                                                                         : DeviceClass::hardware;
}

std::vector<size_t> device_try_order(std::span<const EglDeviceInfo> devices)
{
    std::vector<size_t> order(devices.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return static_cast<int>(classify_device(devices[a])) < static_cast<int>(classify_device(devices[b]));
    });
    return order;
}

}  // namespace kiln::renderer
