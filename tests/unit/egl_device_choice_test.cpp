// The EGL device kiln opens, from fake device descriptions: NVIDIA's or a Mesa hardware device before llvmpipe.
#include "renderer/egl_device_choice.hpp"

#include <catch2/catch_test_macros.hpp>

#include <vector>

using kiln::renderer::classify_device;
using kiln::renderer::device_try_order;
using kiln::renderer::DeviceClass;
using kiln::renderer::EglDeviceInfo;

namespace {

// As Mesa 25 lists its software device (first in its enumeration).
EglDeviceInfo mesa_software()
{
    return {"EGL_MESA_device_software EGL_EXT_device_persistent_id", "swrast", "llvmpipe (LLVM 15.0.6, 256 bits)"};
}

// NVIDIA's device on a machine with no /dev/dri (the H200): no render node.
EglDeviceInfo nvidia_no_dri()
{
    return {"EGL_NV_device_cuda EGL_EXT_device_drm EGL_EXT_device_query_name EGL_EXT_device_persistent_id", "nvidia",
            "NVIDIA H200"};
}

// A Mesa hardware device (iris) with its render node; this Mesa answers no persistent id.
EglDeviceInfo mesa_iris()
{
    return {"EGL_EXT_device_drm EGL_EXT_device_drm_render_node", "", ""};
}

}  // namespace

TEST_CASE("a hardware vendor's device comes before Mesa's software device listed ahead of it")
{
    const std::vector<EglDeviceInfo> devices{mesa_software(), nvidia_no_dri()};
    CHECK(device_try_order(devices) == std::vector<size_t>{1, 0});
}

TEST_CASE("a device with a render node comes before one without, software last")
{
    const std::vector<EglDeviceInfo> devices{mesa_software(), nvidia_no_dri(), mesa_iris()};
    CHECK(device_try_order(devices) == std::vector<size_t>{2, 1, 0});
}

TEST_CASE("only the software device: it is the one tried")
{
    const std::vector<EglDeviceInfo> devices{mesa_software()};
    CHECK(device_try_order(devices) == std::vector<size_t>{0});
}

TEST_CASE("enumeration order stands within a class")
{
    const std::vector<EglDeviceInfo> devices{mesa_iris(), mesa_software(), mesa_iris()};
    CHECK(device_try_order(devices) == std::vector<size_t>{0, 2, 1});
}

TEST_CASE("software is recognised by its extension, its driver name or its renderer, whichever it gives")
{
    CHECK(classify_device(mesa_software()) == DeviceClass::software);
    CHECK(classify_device({"EGL_MESA_device_software", "", ""}) == DeviceClass::software);
    CHECK(classify_device({"EGL_EXT_device_persistent_id", "llvmpipe", ""}) == DeviceClass::software);
    CHECK(classify_device({"EGL_EXT_device_persistent_id", "", "softpipe"}) == DeviceClass::software);
    CHECK(classify_device({"EGL_EXT_device_persistent_id", "", "LLVMpipe (LLVM 17)"}) == DeviceClass::software);
    // A name that only contains the extension's text is not the extension.
    CHECK(classify_device({"EGL_MESA_device_software_not", "nvidia", "NVIDIA H200"}) == DeviceClass::hardware);
    CHECK(classify_device(nvidia_no_dri()) == DeviceClass::hardware);
    CHECK(classify_device(mesa_iris()) == DeviceClass::hardware_render_node);
}

TEST_CASE("no devices, no order")
{
    CHECK(device_try_order(std::span<const EglDeviceInfo>{}).empty());
}
