// RenderFence: an EGL fence placed after a frame's commands; it signals when the GPU (or llvmpipe's threads) finished
// them. A native sync_file fd where the driver exports one, so an event loop can poll it directly.
#pragma once

#include <memory>

namespace kiln::renderer {

class EglDisplay;

class RenderFence {
public:
    // Inserts the fence into the current context's command stream and flushes, so it can signal without anyone
    // waiting on this thread. nullptr when the display has no fence extension.
    static std::unique_ptr<RenderFence> create(const EglDisplay& display);
    ~RenderFence();
    RenderFence(const RenderFence&) = delete;
    RenderFence& operator=(const RenderFence&) = delete;

    // A sync_file fd (owned by the caller) that polls readable when the fence signals; -1 when the driver exports
    // none (llvmpipe on the host: EGL_KHR_fence_sync only), then wait() on a helper thread.
    int export_fd() const;
    // Blocks until the fence signals (true) or fails. Safe on any thread: it needs no current context.
    bool wait() const;

private:
    RenderFence(const EglDisplay& display, void* sync, bool native) : display_(display), sync_(sync), native_(native) {}

    const EglDisplay& display_;
    void* sync_;  // an EGLSyncKHR (a pointer), kept plain so that this header carries no EGL
    bool native_;
};

}  // namespace kiln::renderer
