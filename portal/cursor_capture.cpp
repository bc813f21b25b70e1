// CursorCapture: listens to the cursor session and keeps one capture of the cursor image in flight, so a new picture
// arrives when kiln has one.
#include "cursor_capture.hpp"

#include <wayland-client.h>

#include "ext-image-copy-capture-v1-client-protocol.h"
#include "wayland_outputs.hpp"

namespace portal {

CursorCapture::CursorCapture(WaylandOutputs& wayland, ext_image_capture_source_v1* source,
                             std::function<void()> changed)
    : changed_(std::move(changed)) {
    if (!wayland.pointer())
        return;
    session_ = ext_image_copy_capture_manager_v1_create_pointer_cursor_session(wayland.copy_capture(), source,
                                                                               wayland.pointer());
    static const ext_image_copy_capture_cursor_session_v1_listener listener = {on_enter, on_leave, on_position,
                                                                               on_hotspot};
    ext_image_copy_capture_cursor_session_v1_add_listener(session_, &listener, this);
    OutputCapture::Events events;
    events.constraints = [this](int, int, uint32_t) { image_->request_frame(); };
    events.dropped = [this] { image_->request_frame(); };
    events.frame = [this](const std::vector<Rect>&) {
        ++state_.image_serial;
        if (changed_)
            changed_();
        image_->request_frame();  // answered when the picture changes
    };
    image_ = std::make_unique<OutputCapture>(wayland, ext_image_copy_capture_cursor_session_v1_get_capture_session(
                                                          session_),
                                             std::move(events));
    wayland.flush();
}

CursorCapture::~CursorCapture() {
    image_.reset();
    if (session_)
        ext_image_copy_capture_cursor_session_v1_destroy(session_);
}

void CursorCapture::on_enter(void* data, ext_image_copy_capture_cursor_session_v1*) noexcept {
    static_cast<CursorCapture*>(data)->state_.inside = true;
}

void CursorCapture::on_leave(void* data, ext_image_copy_capture_cursor_session_v1*) noexcept {
    auto* self = static_cast<CursorCapture*>(data);
    self->state_.inside = false;
    if (self->changed_)
        self->changed_();
}

void CursorCapture::on_position(void* data, ext_image_copy_capture_cursor_session_v1*, int32_t x, int32_t y) noexcept {
    auto* self = static_cast<CursorCapture*>(data);
    self->state_.x = x;
    self->state_.y = y;
    if (self->changed_)
        self->changed_();
}

void CursorCapture::on_hotspot(void* data, ext_image_copy_capture_cursor_session_v1*, int32_t x, int32_t y) noexcept {
    auto* self = static_cast<CursorCapture*>(data);
    self->state_.hotspot_x = x;
    self->state_.hotspot_y = y;
    if (self->changed_)
        self->changed_();
}

}  // namespace portal
