// OutputCapture: drives kiln's ext-image-copy-capture session for one output, one frame in flight at a time.
#include "output_capture.hpp"

#include <cstdio>
#include <cstring>

#include <wayland-client.h>

#include "ext-image-capture-source-v1-client-protocol.h"
#include "ext-image-copy-capture-v1-client-protocol.h"
#include "wayland_outputs.hpp"

namespace portal {

namespace {

// XRGB first: a shared screen has no alpha, and consumers take BGRx most readily; a cursor's picture needs its alpha.
bool preferred(uint32_t format, uint32_t current, bool has_current, bool alpha) {
    if (format != WL_SHM_FORMAT_XRGB8888 && format != WL_SHM_FORMAT_ARGB8888)
        return false;
    uint32_t best = alpha ? WL_SHM_FORMAT_ARGB8888 : WL_SHM_FORMAT_XRGB8888;
    return !has_current || (format == best && current != best);
}

}  // namespace

OutputCapture::OutputCapture(WaylandOutputs& wayland, wl_output* output, bool paint_cursors, Events events)
    : OutputCapture(wayland, ext_output_image_capture_source_manager_v1_create_source(wayland.output_sources(), output),
                    paint_cursors, std::move(events)) {}

OutputCapture::OutputCapture(WaylandOutputs& wayland, ext_image_capture_source_v1* source, bool paint_cursors,
                             Events events)
    : wayland_(wayland), events_(std::move(events)), source_(source),
      options_(paint_cursors ? EXT_IMAGE_COPY_CAPTURE_MANAGER_V1_OPTIONS_PAINT_CURSORS : 0) {
    session_ = ext_image_copy_capture_manager_v1_create_session(wayland.copy_capture(), source_, options_);
    listen();
}

void OutputCapture::restart() {
    if (!source_ || stopped_)
        return;
    end_frame();
    ext_image_copy_capture_session_v1_destroy(session_);
    session_ = ext_image_copy_capture_manager_v1_create_session(wayland_.copy_capture(), source_, options_);
    damage_.clear();
    listen();
}

OutputCapture::OutputCapture(WaylandOutputs& wayland, ext_image_copy_capture_session_v1* session, Events events)
    : wayland_(wayland), events_(std::move(events)), session_(session), alpha_(true) {
    listen();
}

void OutputCapture::listen() {
    static const ext_image_copy_capture_session_v1_listener listener = {
        on_buffer_size, on_shm_format, on_dmabuf_device, on_dmabuf_format, on_session_done, on_stopped};
    ext_image_copy_capture_session_v1_add_listener(session_, &listener, this);
    wayland_.flush();
}

OutputCapture::~OutputCapture() {
    if (frame_)
        ext_image_copy_capture_frame_v1_destroy(frame_);
    image_.reset();
    if (session_)
        ext_image_copy_capture_session_v1_destroy(session_);
    if (source_)
        ext_image_capture_source_v1_destroy(source_);
    wayland_.flush();
}

void OutputCapture::request_frame() {
    if (frame_ || !image_ || stopped_)
        return;
    frame_ = ext_image_copy_capture_session_v1_create_frame(session_);
    static const ext_image_copy_capture_frame_v1_listener listener = {on_transform, on_damage, on_presentation_time,
                                                                      on_ready, on_failed};
    ext_image_copy_capture_frame_v1_add_listener(frame_, &listener, this);
    ext_image_copy_capture_frame_v1_attach_buffer(frame_, image_->buffer());
    // Nothing but kiln writes our one buffer: after its first frame it holds the last frame, and kiln need only
    // copy what changed since.
    if (image_fresh_)
        ext_image_copy_capture_frame_v1_damage_buffer(frame_, 0, 0, image_->width(), image_->height());
    ext_image_copy_capture_frame_v1_capture(frame_);
    damage_.clear();
    into_external_ = false;
    wayland_.flush();
}

void OutputCapture::request_frame_into(wl_buffer* buffer, const std::vector<Rect>& missed, bool whole) {
    if (frame_ || stopped_ || !buffer)
        return;
    frame_ = ext_image_copy_capture_session_v1_create_frame(session_);
    static const ext_image_copy_capture_frame_v1_listener listener = {on_transform, on_damage, on_presentation_time,
                                                                      on_ready, on_failed};
    ext_image_copy_capture_frame_v1_add_listener(frame_, &listener, this);
    ext_image_copy_capture_frame_v1_attach_buffer(frame_, buffer);
    if (whole)
        ext_image_copy_capture_frame_v1_damage_buffer(frame_, 0, 0, pending_width_, pending_height_);
    else
        for (const Rect& r : missed)
            ext_image_copy_capture_frame_v1_damage_buffer(frame_, r.x, r.y, r.width, r.height);
    ext_image_copy_capture_frame_v1_capture(frame_);
    damage_.clear();
    into_external_ = true;
    wayland_.flush();
}

void OutputCapture::end_frame() {
    if (frame_)
        ext_image_copy_capture_frame_v1_destroy(frame_);
    frame_ = nullptr;
}

void OutputCapture::on_buffer_size(void* data, ext_image_copy_capture_session_v1*, uint32_t width,
                                   uint32_t height) noexcept {
    auto* self = static_cast<OutputCapture*>(data);
    self->pending_width_ = static_cast<int>(width);
    self->pending_height_ = static_cast<int>(height);
    self->has_format_ = false;  // the formats that follow are this constraint set's
    self->pending_dmabuf_ = {};
}

void OutputCapture::on_shm_format(void* data, ext_image_copy_capture_session_v1*, uint32_t format) noexcept {
    auto* self = static_cast<OutputCapture*>(data);
    if (preferred(format, self->pending_format_, self->has_format_, self->alpha_)) {
        self->pending_format_ = format;
        self->has_format_ = true;
    }
}

void OutputCapture::on_dmabuf_device(void* data, ext_image_copy_capture_session_v1*, wl_array* device) noexcept {
    auto* self = static_cast<OutputCapture*>(data);
    dev_t dev = 0;
    if (device->size == sizeof dev) {
        std::memcpy(&dev, device->data, sizeof dev);
        self->pending_dmabuf_.device = dev;
    }
}

void OutputCapture::on_dmabuf_format(void* data, ext_image_copy_capture_session_v1*, uint32_t format,
                                     wl_array* modifiers) noexcept {
    auto* self = static_cast<OutputCapture*>(data);
    std::vector<uint64_t> list(modifiers->size / sizeof(uint64_t));
    if (!list.empty())
        std::memcpy(list.data(), modifiers->data, list.size() * sizeof(uint64_t));
    self->pending_dmabuf_.formats.emplace_back(format, std::move(list));
}

void OutputCapture::on_session_done(void* data, ext_image_copy_capture_session_v1*) noexcept {
    auto* self = static_cast<OutputCapture*>(data);
    self->dmabuf_ = self->pending_dmabuf_;
    if (!self->has_format_ || self->pending_width_ <= 0 || self->pending_height_ <= 0) {
        std::fprintf(stderr, "kiln-portal: kiln offers no XRGB8888/ARGB8888 shm capture of %dx%d\n",
                     self->pending_width_, self->pending_height_);
        on_stopped(data, nullptr);
        return;
    }
    if (self->image_ && self->image_->width() == self->pending_width_ &&
        self->image_->height() == self->pending_height_ && self->image_->shm_format() == self->pending_format_)
        return;
    // A frame still holding the old buffer would fail with buffer_constraints; it is dropped with its buffer (and
    // the constraints callback asks for the next).
    self->end_frame();
    self->image_ = std::make_unique<ShmImage>(self->wayland_.shm(), self->pending_width_, self->pending_height_,
                                              self->pending_format_);
    self->image_fresh_ = true;
    if (!self->image_->valid()) {
        std::fprintf(stderr, "kiln-portal: cannot allocate a %dx%d frame buffer\n", self->pending_width_,
                     self->pending_height_);
        self->image_.reset();
        on_stopped(data, nullptr);
        return;
    }
    if (self->events_.constraints)
        self->events_.constraints(self->pending_width_, self->pending_height_, self->pending_format_);
}

void OutputCapture::on_stopped(void* data, ext_image_copy_capture_session_v1*) noexcept {
    auto* self = static_cast<OutputCapture*>(data);
    if (self->stopped_)
        return;
    self->stopped_ = true;
    self->end_frame();
    if (self->events_.stopped)
        self->events_.stopped();
}

void OutputCapture::on_transform(void*, ext_image_copy_capture_frame_v1*, uint32_t) noexcept {}

void OutputCapture::on_damage(void* data, ext_image_copy_capture_frame_v1*, int32_t x, int32_t y, int32_t width,
                              int32_t height) noexcept {
    static_cast<OutputCapture*>(data)->damage_.push_back({x, y, width, height});
}

void OutputCapture::on_presentation_time(void*, ext_image_copy_capture_frame_v1*, uint32_t, uint32_t,
                                         uint32_t) noexcept {}

void OutputCapture::on_ready(void* data, ext_image_copy_capture_frame_v1*) noexcept {
    auto* self = static_cast<OutputCapture*>(data);
    self->end_frame();
    if (!self->into_external_)
        self->image_fresh_ = false;
    if (self->events_.frame)
        self->events_.frame(self->damage_);
}

void OutputCapture::on_failed(void* data, ext_image_copy_capture_frame_v1*, uint32_t reason) noexcept {
    auto* self = static_cast<OutputCapture*>(data);
    self->end_frame();
    if (reason == EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED) {
        on_stopped(data, nullptr);
        return;
    }
    // unknown: try again with the next request; buffer_constraints: new constraints and done follow.
    if (!self->into_external_)
        self->image_fresh_ = true;
    else if (!self->told_external_failure_) {
        self->told_external_failure_ = true;  // once: it repeats at the frame rate
        std::fprintf(stderr, "kiln-portal: a capture into the stream's dma-buf failed (reason %u; 1: it does not fit "
                             "or was removed by a renegotiation)\n", reason);
    }
    if (self->events_.dropped)
        self->events_.dropped();
}

}  // namespace portal
