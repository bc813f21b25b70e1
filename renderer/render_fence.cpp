// RenderFence over EGL_ANDROID_native_fence_sync when the driver has it, EGL_KHR_fence_sync otherwise.
#include "renderer/render_fence.hpp"

#include "renderer/egl_display.hpp"

#include <GLES2/gl2.h>

namespace kiln::renderer {

std::unique_ptr<RenderFence> RenderFence::create(const EglDisplay& display)
{
    const EglProcs& procs = display.procs();
    if (!procs.create_sync || !procs.destroy_sync || !procs.client_wait_sync)
        return nullptr;
    const bool native = display.has_extension("EGL_ANDROID_native_fence_sync") && procs.dup_native_fence_fd;
    EGLSyncKHR sync = EGL_NO_SYNC_KHR;
    if (native)
        sync = procs.create_sync(display.handle(), EGL_SYNC_NATIVE_FENCE_ANDROID, nullptr);
    else if (display.has_extension("EGL_KHR_fence_sync"))
        sync = procs.create_sync(display.handle(), EGL_SYNC_FENCE_KHR, nullptr);
    if (sync == EGL_NO_SYNC_KHR)
        return nullptr;
    // The fence only signals once the commands before it reach the driver; a native fence gets its fd at flush.
    glFlush();
    return std::unique_ptr<RenderFence>(new RenderFence(display, sync, native));
}

RenderFence::~RenderFence()
{
    display_.procs().destroy_sync(display_.handle(), sync_);
}

int RenderFence::export_fd() const
{
    if (!native_)
        return -1;
    const int fd = display_.procs().dup_native_fence_fd(display_.handle(), sync_);
    return fd == EGL_NO_NATIVE_FENCE_FD_ANDROID ? -1 : fd;
}

bool RenderFence::wait() const
{
    // No flush flag: this may run on a thread without a context; create() already flushed.
    const EGLint status = display_.procs().client_wait_sync(display_.handle(), sync_, 0, EGL_FOREVER_KHR);
    return status == EGL_CONDITION_SATISFIED_KHR;
}

}  // namespace kiln::renderer
