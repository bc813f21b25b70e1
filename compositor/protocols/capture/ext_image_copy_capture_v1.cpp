// ext_image_copy_capture_manager_v1, ext_image_copy_capture_session_v1 and ext_image_copy_capture_frame_v1; the
// output and window contents sessions capture.
#include "compositor/protocols/capture/ext_image_copy_capture_v1.hpp"

#include "compositor/bridge/capture_target.hpp"
#include "compositor/output/capture_renderer.hpp"
#include "compositor/output/fence_events.hpp"
#include "compositor/protocols/capture/capture_cursor.hpp"
#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/toplevels.hpp"
#include "renderer/render_fence.hpp"

#include "ext-image-copy-capture-v1-protocol.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>

namespace kiln::compositor {
namespace {

// The 10-bit formats come last (clients that take the first they know keep 8 bits): an HDR output's capture in them
// keeps the code values its 8-bit frames round away (renderer/render_target.cpp draws and reads them).
constexpr uint32_t shm_formats[] = {WL_SHM_FORMAT_ARGB8888, WL_SHM_FORMAT_XRGB8888, WL_SHM_FORMAT_XRGB2101010,
                                    WL_SHM_FORMAT_XBGR2101010};

// The region `damage` (buffer pixels of `output`, as kiln's frames count them: before the output's transform) covers
// in layout coordinates, as boxes rounded outwards.
std::vector<wlr_box> to_layout(wlr_output_layout* layout, wlr_output* output, const Region& damage)
{
    std::vector<wlr_box> out;
    const wlr_box* where = wlr_output_layout_get_box(layout, output);
    if (!where)
        return out;
    const double scale = output->scale > 0 ? output->scale : 1.0;
    for (const auto& r : damage.rects()) {
        const int x1 = where->x + static_cast<int>(std::floor(r.x1 / scale));
        const int y1 = where->y + static_cast<int>(std::floor(r.y1 / scale));
        const int x2 = where->x + static_cast<int>(std::ceil(r.x2 / scale));
        const int y2 = where->y + static_cast<int>(std::ceil(r.y2 / scale));
        out.push_back({x1, y1, x2 - x1, y2 - y1});
    }
    return out;
}

// An output as its frames show it.
class OutputContent final : public CaptureContent {
public:
    OutputContent(const CaptureContext& context, wlr_output* output, bool cursors)
        : context_(context), output_(output), cursors_(cursors)
    {
        destroyed_.connect(&output->events.destroy, [this](void*) {
            output_ = nullptr;
            destroyed_.disconnect();
        });
    }
    bool gone() const override { return !output_; }
    void size(int& width, int& height) const override
    {
        width = output_ ? output_->width : 0;
        height = output_ ? output_->height : 0;
    }
    wl_output_transform transform() const override
    {
        return output_ ? output_->transform : WL_OUTPUT_TRANSFORM_NORMAL;
    }
    void output_frame(wlr_output* output, const Region& damage, Region& out) override
    {
        if (output == output_)
            out.add(damage);
    }
    void unreported(Region& out) override
    {
        if (output_ && context_.unshown_damage)
            context_.unshown_damage(output_, out);
    }
    bool render(wlr_buffer* destination, const Region& damage) override
    {
        wlr_scene_output* scene_output = output_ ? wlr_scene_get_scene_output(context_.scene, output_) : nullptr;
        return scene_output && capture_output(*context_.bridge, scene_output, context_.background(),
                                              context_.surfaces, cursors_, destination, damage);
    }

private:
    const CaptureContext& context_;
    wlr_output* output_;
    bool cursors_;
    wl::Listener destroyed_;
};

// One window alone: its scene tree inside its geometry, whatever covers it.
class ToplevelContent final : public CaptureContent {
public:
    ToplevelContent(ExtImageCopyCaptureV1& capture, Toplevels& toplevels, Toplevel& toplevel, bool cursors)
        : capture_(capture), toplevel_(&toplevel), cursors_(cursors)
    {
        unmapped_.connect(&toplevel.events.unmap, [this](void*) { forget(); });
        removed_.connect(&toplevels.events.remove, [this](void* data) {
            if (data == toplevel_)
                forget();
        });
    }
    bool gone() const override { return !toplevel_; }
    void size(int& width, int& height) const override
    {
        width = height = 0;
        if (!toplevel_)
            return;
        const wlr_box area = toplevel_->geometry();
        const float scale = capture_.scale_of(area);
        width = std::max(1, static_cast<int>(std::ceil(area.width * scale)));
        height = std::max(1, static_cast<int>(std::ceil(area.height * scale)));
    }
    void output_frame(wlr_output* output, const Region& damage, Region& out) override
    {
        // The outputs' frames count damage wherever the window's surfaces changed, covered or not: what of it
        // falls on the window is what changed in it (a superset where something moved over it).
        if (toplevel_)
            add_layout_boxes(to_layout(capture_.context().layout, output, damage), out);
    }
    void unreported(Region& out) override
    {
        if (!toplevel_)
            return;
        const CaptureContext& context = capture_.context();
        const wlr_box area = toplevel_->geometry();
        // Outside every output no frame damages it: that part may have changed whenever a frame is copied.
        Region outside(area.x, area.y, area.width, area.height);
        wlr_output_layout_output* placed = nullptr;
        wl_list_for_each(placed, &context.layout->outputs, link)
        {
            if (context.unshown_damage) {
                Region unshown;
                context.unshown_damage(placed->output, unshown);
                if (!unshown.empty())
                    output_frame(placed->output, unshown, out);
            }
            if (const wlr_box* box = wlr_output_layout_get_box(context.layout, placed->output))
                outside.subtract(Region(box->x, box->y, box->width, box->height));
        }
        std::vector<wlr_box> boxes;
        for (const auto& r : outside.rects())
            boxes.push_back({r.x1, r.y1, r.x2 - r.x1, r.y2 - r.y1});
        add_layout_boxes(boxes, out);
    }
    bool render(wlr_buffer* destination, const Region& damage) override
    {
        if (!toplevel_)
            return false;
        const wlr_box area = toplevel_->geometry();
        // The cursor, with paint_cursors, where it is over the window (its moves are output damage here too).
        CaptureCursor cursor;
        if (const CursorState state = locate_cursor(capture_, {nullptr, toplevel_}); cursors_ && state.inside) {
            const wlr_output_cursor* c = state.cursor;
            cursor.texture = cursor_texture(c);
            cursor.box = {state.x - static_cast<int>(std::lround(c->hotspot_x * state.scale)),
                          state.y - static_cast<int>(std::lround(c->hotspot_y * state.scale)),
                          static_cast<int>(std::lround(c->width * state.scale)),
                          static_cast<int>(std::lround(c->height * state.scale))};
        }
        return capture_tree(*capture_.context().bridge, toplevel_->node(), area, capture_.scale_of(area),
                            capture_.context().surfaces, &cursor, destination, damage);
    }

private:
    // Adds `boxes` (layout coordinates) where they fall on the window, in its buffer pixels.
    void add_layout_boxes(const std::vector<wlr_box>& boxes, Region& out) const
    {
        const wlr_box area = toplevel_->geometry();
        const double scale = capture_.scale_of(area);
        int width = 0;
        int height = 0;
        size(width, height);
        for (const wlr_box& b : boxes) {
            const int x1 = static_cast<int>(std::floor((b.x - area.x) * scale));
            const int y1 = static_cast<int>(std::floor((b.y - area.y) * scale));
            const int x2 = static_cast<int>(std::ceil((b.x + b.width - area.x) * scale));
            const int y2 = static_cast<int>(std::ceil((b.y + b.height - area.y) * scale));
            Region r(x1, y1, x2 - x1, y2 - y1);
            r.intersect_rect(0, 0, width, height);
            out.add(r);
        }
    }
    void forget()
    {
        toplevel_ = nullptr;
        unmapped_.disconnect();
        removed_.disconnect();
        capture_.schedule_check();  // the session stops now, not at some output's next frame
    }

    ExtImageCopyCaptureV1& capture_;
    Toplevel* toplevel_;
    bool cursors_;
    wl::Listener unmapped_;
    wl::Listener removed_;
};

// The wl_buffer a client attached, found again by id when the copy is made (it may have been destroyed since).
wl_resource* find_buffer(wl_client* client, uint32_t id)
{
    wl_resource* resource = id ? wl_client_get_object(client, id) : nullptr;
    return resource && std::strcmp(wl_resource_get_class(resource), wl_buffer_interface.name) == 0 ? resource
                                                                                                 : nullptr;
}

// Sends a drawn frame's transform, damage, time and ready, now or (a dma-buf) once `fence` has signalled, if the
// frame still exists then.
void ready_when_drawn(FenceEvents* fences, std::shared_ptr<renderer::RenderFence> fence, wl_resource* frame,
                      std::shared_ptr<bool> alive, wl_output_transform transform, Region damage, timespec when)
{
    auto send = [frame, alive, transform, damage = std::move(damage), when] {
        if (!*alive)
            return;
        ext_image_copy_capture_frame_v1_send_transform(frame, transform);
        for (const auto& r : damage.rects())
            ext_image_copy_capture_frame_v1_send_damage(frame, r.x1, r.y1, r.x2 - r.x1, r.y2 - r.y1);
        const auto seconds = static_cast<uint64_t>(when.tv_sec);
        ext_image_copy_capture_frame_v1_send_presentation_time(frame, static_cast<uint32_t>(seconds >> 32),
                                                               static_cast<uint32_t>(seconds & 0xffffffff),
                                                               static_cast<uint32_t>(when.tv_nsec));
        ext_image_copy_capture_frame_v1_send_ready(frame);
    };
    if (fences && fence) {
        fences->watch(std::move(fence), std::move(send));  // never waits on the compositor thread
        return;
    }
    if (fence)
        fence->wait();  // no event loop to tell (a context built without FenceEvents)
    send();
}

}  // namespace

class ExtImageCopyCaptureV1::Session {
public:
    Session(ExtImageCopyCaptureV1& owner, wl_resource* resource, std::unique_ptr<CaptureContent> content)
        : owner_(&owner), resource_(resource), content_(std::move(content))
    {
        owner.sessions_.push_back(this);
    }
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    void orphan()
    {
        stop();
        owner_ = nullptr;
        content_.reset();
    }
    // Sends the buffer constraints if they changed (and the first time); stops if the content went; completes a
    // waiting frame if the content changed since the last one (or it is the first).
    void check();
    void output_frame(wlr_output* output, const Region& damage)
    {
        if (content_ && !stopped_)
            content_->output_frame(output, damage, damage_);
    }
    void create_frame(uint32_t id);
    void forget_frame(Frame* frame)
    {
        if (frame_ == frame)
            frame_ = nullptr;
    }
    bool stopped() const { return stopped_; }
    void capture(Frame& frame);

private:
    void stop();
    void complete(Frame& frame);
    // The frame's attached wl_buffer if it still exists and meets the constraints (shm, or a dma-buf where they are
    // offered; a format and the size offered), else null.
    wl_resource* fits(const Frame& frame) const;
    // The dma-buf constraints: the device, then each format with its modifiers.
    void send_dmabuf_constraints();

    ExtImageCopyCaptureV1* owner_;
    wl_resource* resource_;
    std::unique_ptr<CaptureContent> content_;
    Region damage_;       // what output frames changed since the last ready frame, buffer pixels
    bool first_ = true;   // the next frame is the first (or the first since the size changed): all of it
    bool stopped_ = false;
    int width_ = -1;
    int height_ = -1;
    Frame* frame_ = nullptr;  // the one frame object this session may have
};

class ExtImageCopyCaptureV1::Frame {
public:
    Frame(Session* session, wl_resource* resource) : session_(session), resource_(resource) {}
    ~Frame()
    {
        *alive_ = false;
        if (session_)
            session_->forget_frame(this);
    }
    Frame(const Frame&) = delete;
    Frame& operator=(const Frame&) = delete;

    static Frame* from(wl_resource* resource) { return static_cast<Frame*>(wl_resource_get_user_data(resource)); }

    Session* session_;
    wl_resource* resource_;
    uint32_t buffer_id_ = 0;  // the attached wl_buffer's id (0: none)
    Region buffer_damage_;
    bool captured_ = false;  // capture was sent
    bool ended_ = false;     // ready or failed was sent (or ready waits for the GPU: ready_when_drawn)
    // False once the resource is gone: a dma-buf frame's ready, sent when the GPU is done, is dropped then.
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);

    void fail(uint32_t reason)
    {
        if (ended_)
            return;
        ended_ = true;
        ext_image_copy_capture_frame_v1_send_failed(resource_, reason);
    }
    bool waiting() const { return captured_ && !ended_; }
};

ExtImageCopyCaptureV1::Session::~Session()
{
    if (frame_) {
        // "Doesn't affect frames": a frame left waiting fails as the session is gone, one captured later too.
        frame_->session_ = nullptr;
        if (frame_->waiting())
            frame_->fail(EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED);
    }
    if (owner_)
        std::erase(owner_->sessions_, this);
}

void ExtImageCopyCaptureV1::Session::stop()
{
    if (stopped_)
        return;
    stopped_ = true;
    if (frame_ && frame_->waiting())  // one not captured yet fails when it is (capture())
        frame_->fail(EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED);
    ext_image_copy_capture_session_v1_send_stopped(resource_);
}

void ExtImageCopyCaptureV1::Session::check()
{
    if (stopped_)
        return;
    if (!content_ || content_->gone()) {
        stop();
        return;
    }
    int width = 0;
    int height = 0;
    content_->size(width, height);
    if (width != width_ || height != height_) {
        width_ = width;
        height_ = height;
        ext_image_copy_capture_session_v1_send_buffer_size(resource_, static_cast<uint32_t>(width),
                                                           static_cast<uint32_t>(height));
        for (uint32_t format : shm_formats)
            ext_image_copy_capture_session_v1_send_shm_format(resource_, format);
        send_dmabuf_constraints();
        ext_image_copy_capture_session_v1_send_done(resource_);
        first_ = true;  // a new size: the next frame is whole
        damage_.clear();
    }
    if (frame_ && frame_->waiting() && (first_ || !damage_.empty()))
        complete(*frame_);
}

void ExtImageCopyCaptureV1::Session::capture(Frame& frame)
{
    if (stopped_) {
        frame.fail(EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED);
        return;
    }
    check();  // the first frame is copied now; a later one once something changed
    // One that waits is told now, not after the next change, if its buffer cannot take the frame.
    if (frame.waiting() && !fits(frame))
        frame.fail(EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS);
}

wl_resource* ExtImageCopyCaptureV1::Session::fits(const Frame& frame) const
{
    wl_resource* buffer = find_buffer(wl_resource_get_client(resource_), frame.buffer_id_);
    wl_shm_buffer* shm = buffer ? wl_shm_buffer_get(buffer) : nullptr;
    if (buffer && !shm) {
        // A dma-buf (linux-dmabuf or wl_drm) where they are offered: one of the formats, modifiers and the size.
        if (!owner_ || !owner_->dmabuf_)
            return nullptr;
        wlr_buffer* wlr = wlr_buffer_from_resource(buffer);
        const bool ok = wlr && owner_->dmabuf_->fits(wlr, width_, height_);
        if (wlr)
            wlr_buffer_unlock(wlr);
        return ok ? buffer : nullptr;
    }
    const uint32_t format = shm ? wl_shm_buffer_get_format(shm) : 0;
    if (!shm || std::find(std::begin(shm_formats), std::end(shm_formats), format) == std::end(shm_formats) ||
        wl_shm_buffer_get_width(shm) != width_ || wl_shm_buffer_get_height(shm) != height_)
        return nullptr;
    return buffer;
}

void ExtImageCopyCaptureV1::Session::complete(Frame& frame)
{
    wl_resource* buffer = fits(frame);
    if (!buffer) {
        frame.fail(EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS);
        return;
    }
    // The content is drawn as it is now: what changed since the output frames (or outside them) is damage too, or
    // the copy would show new pixels only where the last output frame changed something, and keep stale ones where
    // the scene changed since (a moving window torn at every frame).
    Region changed = first_ ? Region(0, 0, width_, height_) : damage_;
    if (!first_)
        content_->unreported(changed);
    changed.intersect_rect(0, 0, width_, height_);
    // What changed, and what the client says this buffer lacks: nothing else is drawn or copied.
    Region copy = changed;
    copy.add(frame.buffer_damage_);
    copy.intersect_rect(0, 0, width_, height_);
    const bool gpu = !wl_shm_buffer_get(buffer);
    wlr_buffer* destination = wlr_buffer_from_resource(buffer);
    const bool drawn = destination && content_->render(destination, copy);
    if (destination)
        wlr_buffer_unlock(destination);
    if (!drawn) {
        // A dma-buf the renderer cannot import or draw into is the client's buffer's fault, not kiln's.
        frame.fail(gpu ? EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS
                       : EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_UNKNOWN);
        return;
    }
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    // shm: the read-back waited for GL already. A dma-buf holds the frame once the GPU has drawn it: ready then.
    frame.ended_ = true;
    const bool fenced = gpu && owner_;
    ready_when_drawn(fenced ? owner_->context_.fences : nullptr,
                     fenced ? capture_fence(*owner_->context_.bridge) : nullptr, frame.resource_, frame.alive_,
                     content_->transform(), std::move(changed), now);
    content_->delivered();
    damage_.clear();
    first_ = false;
}

void ExtImageCopyCaptureV1::Session::send_dmabuf_constraints()
{
    if (!owner_ || !owner_->dmabuf_)
        return;
    const CaptureDmabuf& dmabuf = *owner_->dmabuf_;
    wl_array device;
    wl_array_init(&device);
    if (auto* slot = static_cast<dev_t*>(wl_array_add(&device, sizeof(dev_t))))
        *slot = dmabuf.device;
    ext_image_copy_capture_session_v1_send_dmabuf_device(resource_, &device);
    wl_array_release(&device);
    for (const auto& [fourcc, modifiers] : dmabuf.formats) {
        wl_array list;
        wl_array_init(&list);
        for (uint64_t modifier : modifiers)
            if (auto* slot = static_cast<uint64_t*>(wl_array_add(&list, sizeof(uint64_t))))
                *slot = modifier;
        ext_image_copy_capture_session_v1_send_dmabuf_format(resource_, fourcc, &list);
        wl_array_release(&list);
    }
}

void ExtImageCopyCaptureV1::Session::create_frame(uint32_t id)
{
    if (frame_) {
        wl_resource_post_error(resource_, EXT_IMAGE_COPY_CAPTURE_SESSION_V1_ERROR_DUPLICATE_FRAME,
                               "a frame of this session exists already");
        return;
    }
    wl_resource* resource = wl_resource_create(wl_resource_get_client(resource_),
                                               &ext_image_copy_capture_frame_v1_interface,
                                               wl_resource_get_version(resource_), id);
    if (!resource) {
        wl_resource_post_no_memory(resource_);
        return;
    }
    static const struct ext_image_copy_capture_frame_v1_interface requests = {
        .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
        .attach_buffer = [](wl_client*, wl_resource* resource, wl_resource* buffer) noexcept {
            Frame* frame = Frame::from(resource);
            if (frame->captured_) {
                wl_resource_post_error(resource, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_ALREADY_CAPTURED,
                                       "attach_buffer after capture");
                return;
            }
            frame->buffer_id_ = wl_resource_get_id(buffer);
        },
        .damage_buffer = [](wl_client*, wl_resource* resource, int32_t x, int32_t y, int32_t width,
                            int32_t height) noexcept {
            Frame* frame = Frame::from(resource);
            if (frame->captured_) {
                wl_resource_post_error(resource, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_ALREADY_CAPTURED,
                                       "damage_buffer after capture");
                return;
            }
            if (x < 0 || y < 0 || width <= 0 || height <= 0) {
                wl_resource_post_error(resource, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_INVALID_BUFFER_DAMAGE,
                                       "damage %d,%d %dx%d: negative position or empty size", x, y, width, height);
                return;
            }
            pixman_region32_union_rect(frame->buffer_damage_.get(), frame->buffer_damage_.get(), x, y,
                                       static_cast<unsigned>(width), static_cast<unsigned>(height));
        },
        .capture = [](wl_client*, wl_resource* resource) noexcept {
            Frame* frame = Frame::from(resource);
            if (frame->captured_) {
                wl_resource_post_error(resource, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_ALREADY_CAPTURED,
                                       "capture sent twice");
                return;
            }
            if (!frame->buffer_id_) {
                wl_resource_post_error(resource, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_NO_BUFFER,
                                       "capture without a buffer attached");
                return;
            }
            frame->captured_ = true;
            if (!frame->session_)
                frame->fail(EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED);
            else
                frame->session_->capture(*frame);
        },
    };
    frame_ = new Frame(this, resource);
    wl_resource_set_implementation(resource, &requests, frame_, [](wl_resource* resource) noexcept {
        delete Frame::from(resource);
    });
}

ExtImageCopyCaptureV1::Session* ExtImageCopyCaptureV1::create_session(wl_resource* parent, uint32_t id,
                                                                        std::unique_ptr<CaptureContent> content)
{
    wl_resource* resource = wl_resource_create(wl_resource_get_client(parent),
                                               &ext_image_copy_capture_session_v1_interface,
                                               wl_resource_get_version(parent), id);
    if (!resource) {
        wl_resource_post_no_memory(parent);
        return nullptr;
    }
    static const struct ext_image_copy_capture_session_v1_interface requests = {
        .create_frame = [](wl_client*, wl_resource* resource, uint32_t id) noexcept {
            static_cast<Session*>(wl_resource_get_user_data(resource))->create_frame(id);
        },
        .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
    };
    auto* session = new Session(*this, resource, std::move(content));
    wl_resource_set_implementation(resource, &requests, session, [](wl_resource* resource) noexcept {
        delete static_cast<Session*>(wl_resource_get_user_data(resource));
    });
    session->check();  // the constraints now, or stopped if the source names nothing any more
    return session;
}

struct ExtImageCopyCaptureV1::OutputWatch {
    wlr_output* output;
    wl::Listener precommit;
    wl::Listener destroy;
};

ExtImageCopyCaptureV1::ExtImageCopyCaptureV1(wl_display* display, CaptureContext context, Toplevels& toplevels)
    : context_(std::move(context)),
      toplevels_(toplevels),
      global_(wl_global_create(display, &ext_image_copy_capture_manager_v1_interface, 1, this, bind)),
      loop_(wl_display_get_event_loop(display)),
      dmabuf_(context_.bridge && context_.dmabuf_device
                  ? CaptureDmabuf::of(*context_.bridge, *context_.dmabuf_device)
                  : std::nullopt)
{
    wlr_output_layout_output* placed = nullptr;
    wl_list_for_each(placed, &context_.layout->outputs, link)
        watch_output(placed->output);
    output_added_.connect(&context_.layout->events.add, [this](void* data) {
        watch_output(static_cast<wlr_output_layout_output*>(data)->output);
    });
}

ExtImageCopyCaptureV1::~ExtImageCopyCaptureV1()
{
    for (Session* session : sessions_)
        session->orphan();
    sessions_.clear();
    if (idle_)
        wl_event_source_remove(idle_);
    if (global_)
        wl_global_destroy(global_);
}

void ExtImageCopyCaptureV1::watch_output(wlr_output* output)
{
    for (const auto& watch : outputs_)
        if (watch->output == output)
            return;
    auto watch = std::make_unique<OutputWatch>();
    watch->output = output;
    OutputWatch* raw = watch.get();
    watch->precommit.connect(&output->events.precommit, [this, output](void*) { output_precommit(output); });
    watch->destroy.connect(&output->events.destroy, [this, raw](void*) {
        schedule_check();  // its sessions stop
        // Last: this destroys the listener running now (wlroots' signal emission allows that).
        outputs_.remove_if([raw](const auto& w) { return w.get() == raw; });
    });
    outputs_.push_back(std::move(watch));
}

void ExtImageCopyCaptureV1::output_precommit(wlr_output* output)
{
    const wlr_output_state& pending = output->pending;
    if (!(pending.committed & WLR_OUTPUT_STATE_BUFFER) && !(pending.committed & WLR_OUTPUT_STATE_MODE))
        return;
    // The frame pipeline's damage: what this frame redrew (all of it where the commit says none).
    Region damage(0, 0, output->width, output->height);
    if ((pending.committed & WLR_OUTPUT_STATE_DAMAGE) && !(pending.committed & WLR_OUTPUT_STATE_MODE)) {
        damage.clear();
        damage.add(&pending.damage);
    }
    if (!damage.empty())
        for (Session* session : sessions_)
            session->output_frame(output, damage);
    schedule_check();
}

void ExtImageCopyCaptureV1::schedule_check()
{
    // After the commit, not inside it: the copy draws with the renderer, which the commit has bound.
    if (idle_)
        return;
    idle_ = wl_event_loop_add_idle(
        loop_,
        [](void* data) noexcept {
            auto* self = static_cast<ExtImageCopyCaptureV1*>(data);
            self->idle_ = nullptr;
            self->check_sessions();
        },
        this);
}

void ExtImageCopyCaptureV1::check_sessions()
{
    const std::vector<Session*> sessions = sessions_;  // a check may end a session's frame, never the session
    for (Session* session : sessions)
        session->check();
    const auto watchers = watchers_;
    for (const auto& watcher : watchers)
        watcher.second();
}

float ExtImageCopyCaptureV1::scale_of(const wlr_box& area) const
{
    float scale = 0;
    wlr_output_layout_output* placed = nullptr;
    wl_list_for_each(placed, &context_.layout->outputs, link)
    {
        if (wlr_output_layout_intersects(context_.layout, placed->output, &area))
            scale = std::max(scale, placed->output->scale);
    }
    return scale > 0 ? scale : 1.0f;
}

void ExtImageCopyCaptureV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* manager =
        wl_resource_create(client, &ext_image_copy_capture_manager_v1_interface, static_cast<int>(version), id);
    if (!manager) {
        wl_client_post_no_memory(client);
        return;
    }
    static const struct ext_image_copy_capture_manager_v1_interface requests = {
        .create_session = [](wl_client*, wl_resource* manager, uint32_t id, wl_resource* source,
                             uint32_t options) noexcept {
            auto* self = static_cast<ExtImageCopyCaptureV1*>(wl_resource_get_user_data(manager));
            if (options & ~static_cast<uint32_t>(EXT_IMAGE_COPY_CAPTURE_MANAGER_V1_OPTIONS_PAINT_CURSORS)) {
                wl_resource_post_error(manager, EXT_IMAGE_COPY_CAPTURE_MANAGER_V1_ERROR_INVALID_OPTION,
                                       "unknown options 0x%x", options);
                return;
            }
            const CaptureTarget target = ExtImageCaptureSourceV1::target(source);
            std::unique_ptr<CaptureContent> content;
            if (target.output)
                content = std::make_unique<OutputContent>(
                    self->context_, target.output, options & EXT_IMAGE_COPY_CAPTURE_MANAGER_V1_OPTIONS_PAINT_CURSORS);
            else if (target.toplevel)
                content = std::make_unique<ToplevelContent>(
                    *self, self->toplevels_, *target.toplevel,
                    options & EXT_IMAGE_COPY_CAPTURE_MANAGER_V1_OPTIONS_PAINT_CURSORS);
            self->create_session(manager, id, std::move(content));
        },
        .create_pointer_cursor_session = [](wl_client*, wl_resource* manager, uint32_t id, wl_resource* source,
                                            wl_resource*) noexcept {
            // kiln has one seat and one pointer: any wl_pointer names its cursor.
            auto* self = static_cast<ExtImageCopyCaptureV1*>(wl_resource_get_user_data(manager));
            create_cursor_session(*self, manager, id, ExtImageCaptureSourceV1::target(source));
        },
        .destroy = [](wl_client*, wl_resource* manager) noexcept { wl_resource_destroy(manager); },
    };
    wl_resource_set_implementation(manager, &requests, data, nullptr);
}

}  // namespace kiln::compositor
