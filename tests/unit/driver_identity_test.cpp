// The driver's name kiln reports, from fake EGL/GL identities: NVIDIA's (no EGL_MESA_query_driver), Mesa's, none.
#include "renderer/driver_identity.hpp"

#include <catch2/catch_test_macros.hpp>

using kiln::renderer::describe_driver;
using kiln::renderer::DriverIdentity;

namespace {

// As NVIDIA's 580 driver answers on an H200 through the EGL device platform.
DriverIdentity nvidia()
{
    DriverIdentity id;
    id.gl_vendor = "NVIDIA Corporation";
    id.gl_renderer = "NVIDIA H200/PCIe/SSE2";
    id.gl_version = "OpenGL ES 3.2 NVIDIA 580.159.04";
    return id;
}

}  // namespace

TEST_CASE("NVIDIA is named by its GL vendor, renderer and version")
{
    CHECK(describe_driver(nvidia()) == "NVIDIA Corporation: NVIDIA H200/PCIe/SSE2, OpenGL ES 3.2 NVIDIA 580.159.04");
}

TEST_CASE("the EGL device's own names come first where EGL_EXT_device_persistent_id gives them")
{
    DriverIdentity id = nvidia();
    id.device_driver = "nvidia";
    id.device_renderer = "NVIDIA H200";
    CHECK(describe_driver(id) == "nvidia: NVIDIA H200, OpenGL ES 3.2 NVIDIA 580.159.04");
}

TEST_CASE("Mesa keeps the name EGL_MESA_query_driver gives")
{
    DriverIdentity id;
    id.mesa_driver = "swrast";
    id.gl_vendor = "Mesa";
    id.gl_renderer = "llvmpipe (LLVM 15.0.6, 256 bits)";
    id.gl_version = "OpenGL ES 3.2 Mesa 22.3.6";
    CHECK(describe_driver(id) == "swrast");
}

TEST_CASE("a driver that names nothing is unknown, not empty")
{
    CHECK(describe_driver(DriverIdentity{}) == "unknown");
    DriverIdentity blank;
    blank.gl_vendor = " \n";
    CHECK(describe_driver(blank) == "unknown");
}

TEST_CASE("drivers' strings become one printable line of at most 255 bytes")
{
    DriverIdentity id = nvidia();
    id.gl_renderer = "NVIDIA\tH200\n\x7f" + std::string(400, 'x');
    const std::string name = describe_driver(id);
    CHECK(name.size() <= 255);
    CHECK(name.starts_with("NVIDIA Corporation: NVIDIA H200 xxx"));
    for (char c : name)
        CHECK((static_cast<unsigned char>(c) >= 0x20 && c != 0x7f));
}
