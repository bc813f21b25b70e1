// RenderBridge: kiln's renderer presented to wlroots 0.15 as a wlr_renderer (wlr/render/interface.h), so wlroots'
// outputs, wl_shm surfaces, screencopy and the scene all draw through kiln's GL code. It is the wlr_renderer face and
// its render targets; what it is built on has a type each: EGL started at once or lazily (LazyEgl), client buffers as
// textures (ClientTextures), and whether frames are composed on the CPU (CompositionChoice).
#pragma once

#include "compositor/bridge/client_textures.hpp"
#include "compositor/bridge/composition_choice.hpp"
#include "compositor/bridge/lazy_egl.hpp"
#include "compositor/wlr.hpp"
#include "renderer/display_profile.hpp"
#include "renderer/types.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

// Named only: their headers carry GL and EGL, which the compositor outside bridge/ never sees.
namespace kiln::renderer {
class ProgramCache;
class RenderTarget;
}  // namespace kiln::renderer

namespace kiln::compositor {

struct BufferTarget;

class RenderBridge {
public:
    // Opens the EGL display for the backend's DRM fd (-1 when none) and builds the renderer; or, given the cached
    // `lazy` profile of the display it would open, opens nothing yet: EGL starts when something first needs GL
    // (LazyEgl::ensure). The returned bridge is owned by wlroots: wlr_renderer_destroy(bridge->wlr()) deletes it.
    static RenderBridge* create(int drm_fd, renderer::ProgramCache& programs,
                                std::optional<renderer::DisplayProfile> lazy, std::string& error);
    static RenderBridge* from_wlr(wlr_renderer* renderer);

    wlr_renderer* wlr() { return &base_.renderer; }
    LazyEgl& egl() { return egl_; }
    const LazyEgl& egl() const { return egl_; }
    ClientTextures& textures() { return textures_; }
    const ClientTextures& textures() const { return textures_; }
    CompositionChoice& composition() { return composition_; }
    const CompositionChoice& composition() const { return composition_; }
    // Whether frames may be composed on the CPU (renderer::CpuCompositor): asked for (`allowed`) and GL itself runs
    // on the CPU. shm textures are then read in place, or keep a CPU copy while frames go through GL.
    bool enable_cpu_composition(bool allowed);

    // For kiln's frame pipeline (compositor/output/), which draws with the renderer directly (frames themselves
    // through GlFrame, gl_frame.hpp): the render target of an output buffer (made on first use, cached on the
    // buffer), or nullptr;
    renderer::RenderTarget* render_target(wlr_buffer* buffer);
    // copies these boxes of a CPU-backed buffer's GL frame into its memory, once the frame's fence has signalled.
    bool read_back(wlr_buffer* buffer, std::span<const renderer::Box> boxes);
    // Marks an output buffer whose memory, not its GL framebuffer, holds its latest frame (composed on the CPU), or
    // clears the mark when GL draws into it again; read_pixels (screencopy) reads from where the frame is.
    static void set_memory_current(wlr_buffer* buffer, bool current);
    // The formats output buffers may have (wlr_renderer's render formats), and binds one (a client's buffer scanned
    // out directly, for screencopy) as wlroots' bind_buffer does.
    const wlr_drm_format_set* render_formats();
    bool bind_buffer(wlr_buffer* buffer);

    // Called by wlroots through wlr_renderer_destroy; nothing else deletes a bridge.
    ~RenderBridge();

private:
    // GlFrame ends its frames with end_flushed().
    friend class GlFrame;
    RenderBridge(int drm_fd, renderer::ProgramCache& programs);
    // The wlr_renderer_impl whose C entry points call the members below.
    static const wlr_renderer_impl* vtable();

    // Ends the frame a GlFrame drew into the bound buffer: its commands are only flushed (the pipeline fences them
    // and reads back what is consumed), and the target is let go, so wlroots' end that follows only unbinds.
    void end_flushed();

    // wlr_renderer_impl entry points.
    void begin(uint32_t width, uint32_t height);
    void end();
    void clear(const float color[4]);
    void scissor(wlr_box* box);
    bool render_subtexture(wlr_texture* texture, const wlr_fbox* box, const float matrix[9], float alpha);
    void render_quad(const float color[4], const float matrix[9]);
    const uint32_t* shm_formats(size_t* len);
    const wlr_drm_format_set* dmabuf_texture_formats();
    bool read_pixels(uint32_t format, uint32_t* flags, uint32_t stride, uint32_t width, uint32_t height,
                     uint32_t src_x, uint32_t src_y, uint32_t dst_x, uint32_t dst_y, void* data);
    // Logs why a read was refused (a reader such as screencopy only tells its client "failed"), the first few times
    // only: a client asking again and again must not flood the log. Returns false.
    bool refuse_read(const std::string& why);
    uint32_t render_buffer_caps() const;

    BufferTarget* target_for(wlr_buffer* buffer);
    // The bound buffer's GL target, made on first use where bind_buffer deferred it.
    BufferTarget* bound_target();

    // wlroots finds the bridge from the wlr_renderer pointer it hands back.
    struct Base {
        wlr_renderer renderer;
        RenderBridge* self;
    } base_{};

    CompositionChoice composition_;
    LazyEgl egl_;  // after the choice, which it reads when the renderer is made
    ClientTextures textures_{egl_, composition_};
    unsigned read_refusals_ = 0;
    std::vector<uint32_t> shm_formats_;
    wlr_drm_format_set dmabuf_texture_formats_{};
    wlr_drm_format_set render_formats_{};
    wlr_buffer* bound_ = nullptr;
    BufferTarget* target_ = nullptr;
    bool target_deferred_ = false;  // bound_ has memory and gets a GL target only if GL draws into or reads it
};

}  // namespace kiln::compositor
