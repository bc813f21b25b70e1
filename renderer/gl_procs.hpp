// Extension entry points of EGL and GLES, looked up once per display and passed around explicitly.
#pragma once

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>

namespace kiln::renderer {

struct EglProcs {
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display = nullptr;
    PFNEGLQUERYDEVICESEXTPROC query_devices = nullptr;
    PFNEGLQUERYDEVICESTRINGEXTPROC query_device_string = nullptr;
    PFNEGLQUERYDISPLAYATTRIBEXTPROC query_display_attrib = nullptr;
    PFNEGLCREATEIMAGEKHRPROC create_image = nullptr;
    PFNEGLDESTROYIMAGEKHRPROC destroy_image = nullptr;
    PFNEGLQUERYDMABUFFORMATSEXTPROC query_dmabuf_formats = nullptr;
    PFNEGLQUERYDMABUFMODIFIERSEXTPROC query_dmabuf_modifiers = nullptr;
    PFNEGLGETDISPLAYDRIVERNAMEPROC get_display_driver_name = nullptr;
    PFNEGLCREATESYNCKHRPROC create_sync = nullptr;
    PFNEGLDESTROYSYNCKHRPROC destroy_sync = nullptr;
    PFNEGLDUPNATIVEFENCEFDANDROIDPROC dup_native_fence_fd = nullptr;
    PFNEGLWAITSYNCKHRPROC wait_sync = nullptr;
    PFNEGLCLIENTWAITSYNCKHRPROC client_wait_sync = nullptr;
    PFNGLEGLIMAGETARGETTEXTURE2DOESPROC image_target_texture = nullptr;
    PFNGLEGLIMAGETARGETRENDERBUFFERSTORAGEOESPROC image_target_renderbuffer = nullptr;

    // Client extensions and those that need no display.
    void load_client();
    // Display- and context-level extensions.
    void load_display();
};

}  // namespace kiln::renderer
