// Looks up EGL/GLES extension functions with eglGetProcAddress.
#include "renderer/gl_procs.hpp"

namespace kiln::renderer {
namespace {

template <typename T>
void load(T& out, const char* name)
{
    out = reinterpret_cast<T>(eglGetProcAddress(name));
}

}  // namespace

void EglProcs::load_client()
{
    load(get_platform_display, "eglGetPlatformDisplayEXT");
    load(query_devices, "eglQueryDevicesEXT");
    load(query_device_string, "eglQueryDeviceStringEXT");
    load(query_display_attrib, "eglQueryDisplayAttribEXT");
}

void EglProcs::load_display()
{
    load(create_image, "eglCreateImageKHR");
    load(destroy_image, "eglDestroyImageKHR");
    load(query_dmabuf_formats, "eglQueryDmaBufFormatsEXT");
    load(query_dmabuf_modifiers, "eglQueryDmaBufModifiersEXT");
    load(get_display_driver_name, "eglGetDisplayDriverName");
    load(create_sync, "eglCreateSyncKHR");
    load(destroy_sync, "eglDestroySyncKHR");
    load(dup_native_fence_fd, "eglDupNativeFenceFDANDROID");
    load(wait_sync, "eglWaitSyncKHR");
    load(client_wait_sync, "eglClientWaitSyncKHR");
    load(image_target_texture, "glEGLImageTargetTexture2DOES");
    load(image_target_renderbuffer, "glEGLImageTargetRenderbufferStorageOES");
}

}  // namespace kiln::renderer
