// DriverIdentity: what EGL and GL say about the driver behind a display, and the one name kiln reports for it.
#pragma once

#include <string>

namespace kiln::renderer {

struct DriverIdentity {
    std::string mesa_driver;      // EGL_MESA_query_driver (Mesa only): "iris", "radeonsi", "swrast"
    std::string device_driver;    // EGL_EXT_device_persistent_id's EGL_DRIVER_NAME_EXT for the display's device
    std::string device_renderer;  // and its EGL_RENDERER_EXT
    std::string gl_vendor;        // GL_VENDOR, GL_RENDERER, GL_VERSION of the context
    std::string gl_renderer;
    std::string gl_version;
};

// Mesa's driver name where Mesa names one (kiln's software checks and the cached display profile go by it);
// otherwise "<vendor>: <renderer>, <GL version>" from the EGL device where it names one, else from GL (on NVIDIA:
// "NVIDIA Corporation: NVIDIA H200/PCIe/SSE2, OpenGL ES 3.2 NVIDIA 580.159.04"); "unknown" when nothing is named.
// One line of printable text of at most 255 bytes, as the display profile file keeps it.
std::string describe_driver(const DriverIdentity& identity);

}  // namespace kiln::renderer
