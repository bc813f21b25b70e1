// RenderBridge: kiln's renderer presented to wlroots 0.15 as a wlr_renderer (wlr/render/interface.h), so wlroots'
// outputs, wl_shm surfaces, screencopy and the scene all draw through kiln's GL code.
#pragma once

#include "compositor/bridge/in_place_reads.hpp"
#include "compositor/wlr.hpp"
#include "renderer/display_profile.hpp"
#include "renderer/renderer_stats.hpp"
#include "renderer/types.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <sys/types.h>
#include <vector>

// Named only: their headers carry GL and EGL, which the compositor outside bridge/ never sees.
namespace kiln::renderer {
class EglDisplay;
class ProgramCache;
class Renderer;
class RenderTarget;
class Texture;
struct CpuImage;
}  // namespace kiln::renderer

namespace kiln::compositor {

struct BufferTarget;
struct DmabufTextureCache;

class RenderBridge {
public:
    // Opens the EGL display for the backend's DRM fd (-1 when none) and builds the renderer; or, given the cached
    // `lazy` profile of the display it would open, opens nothing yet: EGL starts when something first needs GL
    // (ensure_egl). The returned bridge is owned by wlroots: wlr_renderer_destroy(bridge->wlr()) deletes it.
    static RenderBridge* create(int drm_fd, renderer::ProgramCache& programs,
                                std::optional<renderer::DisplayProfile> lazy, std::string& error);
    static RenderBridge* from_wlr(wlr_renderer* renderer);

    wlr_renderer* wlr() { return &base_.renderer; }
    // Only once EGL has started (egl_started(), or ensure_egl() returned true).
    renderer::Renderer& renderer() { return *renderer_; }
    renderer::EglDisplay& display() { return *display_; }
    // The display as clients and wlroots see it (kind, driver, device, dma-buf formats), EGL started or not.
    const renderer::DisplayProfile& profile() const { return profile_; }

    bool egl_started() const { return display_ != nullptr; }
    // Starts EGL and the renderer if they are not yet (`reason` is logged and kept for --stats) and makes the
    // context current; false if EGL cannot start (said once, and not tried again).
    bool ensure_egl(const char* reason);
    // Why EGL started late ("" when it started with kiln or not at all).
    const std::string& egl_started_by() const { return started_by_; }
    // Called once EGL has started late, with the display as it really is.
    void on_egl_started(std::function<void()> callback) { on_egl_started_ = std::move(callback); }
    // The renderer's counters, with those of textures made before EGL started.
    renderer::RendererStats renderer_stats() const;

    // Client dma-bufs imported (one per wl_buffer: an EGLImage, or a mapping read on the CPU, renderer_stats()'s
    // dmabuf_mapped), and imports of memory that was already imported and still is.
    uint64_t dmabuf_imports() const;
    uint64_t dmabuf_reimports() const { return dmabuf_reimports_; }
    uint64_t dmabuf_texture_reuses() const { return dmabuf_texture_reuses_; }
    // When the EGL context existed (late, if it started late) and when the renderer was made, for start-up stats.
    std::chrono::steady_clock::time_point egl_ready_at() const { return egl_ready_at_; }
    std::chrono::steady_clock::time_point programs_ready_at() const { return programs_ready_at_; }

    // Imports a client dma-buf (a wl_buffer from linux-dmabuf or wl_drm) now, so a bad one is refused at creation;
    // the texture stays cached on the buffer and every later commit of it samples the same EGLImage.
    bool import_client_buffer(wlr_buffer* buffer, std::string& error);

    struct DmabufIdentity {
        dev_t device = 0;
        ino_t inode = 0;
        uint32_t offset = 0;
        auto operator<=>(const DmabufIdentity&) const = default;
    };
    void forget_import(const DmabufIdentity& identity);
    static RenderBridge* from_owner(const void* owner);

    // For kiln's frame pipeline (compositor/output/), which draws with the renderer directly:
    // the render target of an output buffer (made on first use, cached on the buffer), or nullptr;
    renderer::RenderTarget* render_target(wlr_buffer* buffer);
    // kiln's texture behind a wlr_texture this bridge made;
    static renderer::Texture& texture(wlr_texture* texture);
    // For CPU composition, no GL: whether CpuCompositor can read a texture this bridge made (kiln's CPU copy of it,
    // or the client's memory where it lies: shm, or a dma-buf kiln mapped, dmabuf_mapping.hpp); and `use` called
    // with its pixels (the client's memory mapped, or synced, for the call), false if it has none or they could not
    // be read.
    static bool has_cpu_image(wlr_texture* texture);
    static bool with_cpu_image(wlr_texture* texture, const std::function<void(const renderer::CpuImage&)>& use);
    // copies these boxes of a CPU-backed buffer's GL frame into its memory, once the frame's fence has signalled.
    bool read_back(wlr_buffer* buffer, std::span<const renderer::Box> boxes);
    // (Frames themselves are drawn through GlFrame, compositor/bridge/gl_frame.hpp.)
    // Whether frames may be composed on the CPU (renderer::CpuCompositor): asked for (`allowed`) and GL itself runs
    // on the CPU. shm textures are then read in place, or keep a CPU copy while frames go through GL.
    bool enable_cpu_composition(bool allowed);
    bool cpu_composition() const { return cpu_composition_; }
    // Which path an output's last frame took. While frames are composed on the CPU, shm commits are read where they
    // lie (no copy); while GL draws them, they are copied as before, so GL uploads only their damage.
    void frame_composed(bool on_cpu) { shm_in_place_ = on_cpu; }
    // Marks an output buffer whose memory, not its GL framebuffer, holds its latest frame (composed on the CPU), or
    // clears the mark when GL draws into it again; read_pixels (screencopy) reads from where the frame is.
    static void set_memory_current(wlr_buffer* buffer, bool current);

    // Told of every texture that reads a client's buffer in place, and of its end: the buffer's release is decided
    // there (output/sync/buffer_releases.hpp). Textures made before keep who was told then; an expired one hears
    // nothing (kiln is going).
    void tell_in_place_reads(std::weak_ptr<InPlaceReads> reads) { in_place_reads_ = std::move(reads); }

    // wlr_renderer_impl entry points (called through C trampolines).
    bool bind_buffer(wlr_buffer* buffer);
    void begin(uint32_t width, uint32_t height);
    void end();
    void clear(const float color[4]);
    void scissor(wlr_box* box);
    bool render_subtexture(wlr_texture* texture, const wlr_fbox* box, const float matrix[9], float alpha);
    void render_quad(const float color[4], const float matrix[9]);
    const uint32_t* shm_formats(size_t* len);
    const wlr_drm_format_set* dmabuf_texture_formats();
    const wlr_drm_format_set* render_formats();
    bool read_pixels(uint32_t format, uint32_t* flags, uint32_t stride, uint32_t width, uint32_t height,
                     uint32_t src_x, uint32_t src_y, uint32_t dst_x, uint32_t dst_y, void* data);
    // Logs why a read was refused (a reader such as screencopy only tells its client "failed"), the first few times
    // only: a client asking again and again must not flood the log. Returns false.
    bool refuse_read(const std::string& why);
    uint32_t render_buffer_caps() const;
    wlr_texture* texture_from_buffer(wlr_buffer* buffer);

    // Called by wlroots through wlr_renderer_destroy; nothing else deletes a bridge.
    ~RenderBridge();

private:
    // GlFrame ends its frames with end_flushed().
    friend class GlFrame;
    RenderBridge();

    // Ends the frame a GlFrame drew into the bound buffer: its commands are only flushed (the pipeline fences them
    // and reads back what is consumed), and the target is let go, so wlroots' end that follows only unbinds.
    void end_flushed();

    BufferTarget* target_for(wlr_buffer* buffer);
    // The bound buffer's GL target, made on first use where bind_buffer deferred it.
    BufferTarget* bound_target();
    // `source`: the client buffer this texture reads in place (a dma-buf, or shm with `shm`), kept until the texture
    // ends, whose start and end in_place_reads_ hears.
    wlr_texture* wrap(std::shared_ptr<renderer::Texture> texture, wlr_buffer* source = nullptr, bool shm = false);
    DmabufTextureCache* cached_dmabuf(wlr_buffer* buffer);
    // A client dma-buf as a texture CPU composition reads through a mapping (dmabuf_mapping.hpp), no EGL: where
    // frames are composed on the CPU and the buffer is one linear plane pixman reads; else nullptr (EGL imports it).
    std::shared_ptr<renderer::Texture> map_for_cpu(const wlr_dmabuf_attributes& dmabuf);

    // wlroots finds the bridge from the wlr_renderer pointer it hands back.
    struct Base {
        wlr_renderer renderer;
        RenderBridge* self;
    } base_{};

    // Opens EGL and makes the renderer; false with `error`.
    bool start_egl(std::string& error);

    int drm_fd_ = -1;
    renderer::ProgramCache* programs_ = nullptr;
    renderer::DisplayProfile profile_;
    std::unique_ptr<renderer::EglDisplay> display_;
    std::unique_ptr<renderer::Renderer> renderer_;
    renderer::RendererStats early_stats_;  // shm textures made before EGL started count here (they keep the pointer)
    bool egl_failed_ = false;
    unsigned read_refusals_ = 0;
    unsigned cpu_map_refusals_ = 0;  // dma-bufs map_for_cpu could not map
    std::string started_by_;
    std::function<void()> on_egl_started_;
    std::vector<uint32_t> shm_formats_;
    wlr_drm_format_set dmabuf_texture_formats_{};
    wlr_drm_format_set render_formats_{};
    wlr_buffer* bound_ = nullptr;
    BufferTarget* target_ = nullptr;
    bool target_deferred_ = false;  // bound_ has memory and gets a GL target only if GL draws into or reads it
    uint64_t dmabuf_reimports_ = 0;
    std::map<DmabufIdentity, int> live_imports_;
    uint64_t dmabuf_texture_reuses_ = 0;
    std::weak_ptr<InPlaceReads> in_place_reads_;
    bool cpu_composition_ = false;
    bool shm_in_place_ = true;  // see frame_composed()
    std::chrono::steady_clock::time_point egl_ready_at_;
    std::chrono::steady_clock::time_point programs_ready_at_;
};

}  // namespace kiln::compositor
