// ExtImageCopyCaptureV1: ext_image_copy_capture_manager_v1, its sessions and frames: an output or one window (from
// ext-image-capture-source) copied into a client's shm buffer through kiln's renderer, with the damage since the
// session's previous frame: the frames the outputs committed since, and what the scene changed that they do not show
// yet (a frame draws the scene as it is when it is copied, not as the last output frame showed it). Only what changed
// (and what the client says its buffer lacks) is drawn and copied. A frame after the first waits until an output
// frame changed something. Cursor sessions are in ext_image_copy_capture_cursor_v1.cpp.
//
// dma-buf buffers are offered too where the renderer has a DRM device (bridge/capture_target.hpp): the GPU draws into
// them, nothing is read back, and ready waits for the render fence (FenceEvents), never the compositor thread.
#pragma once

#include "compositor/bridge/capture_target.hpp"
#include "compositor/listener.hpp"
#include "compositor/output/capture_renderer.hpp"
#include "compositor/protocols/capture/ext_image_capture_source_v1.hpp"
#include "compositor/region.hpp"
#include "compositor/wlr.hpp"
#include "renderer/types.hpp"

#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace kiln::compositor {

class FenceEvents;
class RenderBridge;
class Toplevels;

// What a session captures: its size, and how an output's frame damages it, drawn on request.
class CaptureContent {
public:
    virtual ~CaptureContent() = default;
    // The output or window is gone: the session stops.
    virtual bool gone() const = 0;
    // The buffer size frames need now.
    virtual void size(int& width, int& height) const = 0;
    virtual wl_output_transform transform() const { return WL_OUTPUT_TRANSFORM_NORMAL; }
    // `output` is committing a frame that redrew `damage` (its buffer pixels): adds what that changed here (buffer
    // pixels) to `out`.
    virtual void output_frame(wlr_output* output, const Region& damage, Region& out) = 0;
    // Adds to `out` (buffer pixels) what may have changed that output frames have not reported: the scene's damage
    // no committed frame shows yet, and what no output frame can show (a window's part outside every output). A
    // frame is drawn as the content is when it is copied, so its damage counts these too.
    virtual void unreported(Region& out) { (void)out; }
    // The frame drawn last went to the client (ready).
    virtual void delivered() {}
    // Draws `damage` of the content into `destination` (of size()); false if it cannot.
    virtual bool render(wlr_buffer* destination, const Region& damage) = 0;
};

// What sessions draw with and look at (narrow: no Server).
struct CaptureContext {
    wlr_scene* scene = nullptr;
    wlr_output_layout* layout = nullptr;
    RenderBridge* bridge = nullptr;
    std::function<renderer::Color()> background;
    SurfaceLooks surfaces;  // alpha-modifier's factor and color-representation's values, as output frames draw them
    // Adds to the region what `output`'s committed frames do not show of the scene yet (buffer pixels).
    std::function<void(const wlr_output*, Region&)> unshown_damage;
    FenceEvents* fences = nullptr;  // dma-buf frames are ready when their render fence signals
    std::optional<dev_t> dmabuf_device;  // linux-dmabuf's main device: dma-buf frames are offered where there is one
};

class ExtImageCopyCaptureV1 {
public:
    ExtImageCopyCaptureV1(wl_display* display, CaptureContext context, Toplevels& toplevels);
    ~ExtImageCopyCaptureV1();
    ExtImageCopyCaptureV1(const ExtImageCopyCaptureV1&) = delete;
    ExtImageCopyCaptureV1& operator=(const ExtImageCopyCaptureV1&) = delete;

    const wl_global* global() const { return global_; }
    const CaptureContext& context() const { return context_; }
    Toplevels& toplevels() const { return toplevels_; }

    class Session;
    class Frame;

    // Makes an ext_image_copy_capture_session_v1 `id` (of `parent`'s client and version) capturing `content`; the
    // cursor sessions' get_capture_session uses it too.
    Session* create_session(wl_resource* parent, uint32_t id, std::unique_ptr<CaptureContent> content);
    // Something changed outside output frames (a cursor image): sessions look again at once.
    void schedule_check();

    // `update` runs whenever sessions are checked (after each output frame): cursor sessions follow the pointer.
    void add_watcher(const void* key, std::function<void()> update) { watchers_.push_back({key, std::move(update)}); }
    void remove_watcher(const void* key)
    {
        std::erase_if(watchers_, [key](const auto& w) { return w.first == key; });
    }

    // The scale a window is captured at: the largest of the outputs it is on (1 on none).
    float scale_of(const wlr_box& area) const;

private:
    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;
    void watch_output(wlr_output* output);
    void output_precommit(wlr_output* output);
    void check_sessions();

    struct OutputWatch;

    CaptureContext context_;
    Toplevels& toplevels_;
    wl_global* global_;
    wl_event_loop* loop_;
    wl_event_source* idle_ = nullptr;
    std::optional<CaptureDmabuf> dmabuf_;  // dma-buf frames: where and as what (none without a DRM device)
    std::vector<Session*> sessions_;
    std::vector<std::pair<const void*, std::function<void()>>> watchers_;
    std::list<std::unique_ptr<OutputWatch>> outputs_;
    wl::Listener output_added_;
};

// ext_image_copy_capture_manager_v1.create_pointer_cursor_session (ext_image_copy_capture_cursor_v1.cpp).
void create_cursor_session(ExtImageCopyCaptureV1& capture, wl_resource* manager, uint32_t id, CaptureTarget target);

}  // namespace kiln::compositor
