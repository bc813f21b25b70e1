// ScreenCastSession: exports org.freedesktop.impl.portal.Session and paces captures to the consumer's frame rate.
#include "screencast_session.hpp"

#include <cstdio>
#include <ctime>
#include <utility>

#include <spa/utils/defs.h>
#include <systemd/sd-bus.h>
#include <wayland-client.h>

#include "pipewire_link.hpp"
#include "wayland_outputs.hpp"

namespace portal {

namespace {

uint64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

int session_version(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void*,
                    sd_bus_error*) noexcept {
    return sd_bus_message_append(reply, "u", 1u);
}

}  // namespace

ScreenCastSession::ScreenCastSession(sd_bus* bus, std::string path, std::string app_id, EventLoop& loop)
    : bus_(bus), path_(std::move(path)), app_id_(std::move(app_id)), loop_(loop),
      next_frame_(loop, [this] {
          if (!capture_ || !stream_ || !streaming_)
              return;
          if (stream_->waiting()) {
              // The cursor's last update found no free buffer: offer it again rather than wait for kiln, which
              // sends the next frame only when something changes.
              stream_->retry();
              next_frame_.arm_in(frame_interval_ns());
              return;
          }
          last_request_ns_ = now_ns();
          // Zero-copy: kiln writes the frame into the consumer's next buffer (a memfd wl_shm buffer, or a dma-buf
          // its GPU draws into); where the consumer holds them all, this frame is skipped.
          target_ = stream_->capture_target();
          if (!target_) {
              next_frame_.arm_in(frame_interval_ns());
              return;
          }
          capture_->request_frame_into(target_->buffer(), target_->missed, target_->whole);
      }),
      publish_(loop, [this] { publish(); }),
      resend_(loop, [this] {
          if (!stream_ || !capture_)
              return;
          if (!streaming_) {
              resend_when_streaming_ = true;
              return;
          }
          // kiln sends a new session's first frame at once, whole: the frame of a still screen, again, for it.
          stream_->consumer_joined();
          restart_capture_ = true;
          schedule_frame();
      }) {
    // The session object lives at the path the frontend chose; Close reaches this session through userdata.
    static const sd_bus_vtable vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Close", "", "", on_close, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL("Closed", "", 0),
        SD_BUS_PROPERTY("version", "u", session_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_VTABLE_END,
    };
    sd_bus_add_object_vtable(bus_, &slot_, path_.c_str(), "org.freedesktop.impl.portal.Session", vtable, this);
}

ScreenCastSession::~ScreenCastSession() {
    links_.reset();
    stream_.reset();
    cursor_.reset();  // before the capture, whose source it names
    capture_.reset();
    sd_bus_slot_unref(slot_);
}

int ScreenCastSession::on_close(sd_bus_message* message, void* data, sd_bus_error*) noexcept {
    auto* self = static_cast<ScreenCastSession*>(data);
    self->closed_ = true;  // dropped by the portal after this call returns
    return sd_bus_reply_method_return(message, "");
}

void ScreenCastSession::end(const char* why) {
    if (closed_)
        return;
    std::fprintf(stderr, "kiln-portal: session %s ends: %s\n", path_.c_str(), why);
    closed_ = true;
    sd_bus_emit_signal(bus_, path_.c_str(), "org.freedesktop.impl.portal.Session", "Closed", "");
}

std::string ScreenCastSession::start(WaylandOutputs& wayland, PipeWireLink& link, ext_image_capture_source_v1* source,
                                     int max_fps) {
    if (started() || capture_)
        return "already started";
    OutputCapture::Events events;
    events.constraints = [this](int width, int height, uint32_t format) {
        width_ = width;
        height_ = height;
        shm_format_ = format;
        have_constraints_ = true;
        if (stream_) {
            stream_->resize(width, height, format);
            schedule_frame();  // the frame in flight went with the old buffer
        }
    };
    events.dropped = [this] {
        if (stream_ && target_)
            stream_->target_failed(std::exchange(target_, nullptr));
        schedule_frame();
    };
    events.frame = [this](const std::vector<Rect>& damage) {
        if (!stream_ || !target_) {
            schedule_frame();
            return;
        }
        // Written into the consumer's own buffer: queued as it is, after this round of events (the cursor's).
        stream_->target_filled(std::exchange(target_, nullptr), damage);
        publish_soon();
    };
    events.stopped = [this] {
        end(source_type_ == source_window ? "kiln stopped the capture (the window closed?)"
                                          : "kiln stopped the capture (the output went away?)");
    };
    capture_ = std::make_unique<OutputCapture>(wayland, source, cursor_mode_ == cursor_embedded, std::move(events));
    for (int i = 0; i < 4 && !have_constraints_ && !closed_; ++i)
        if (wl_display_roundtrip(wayland.display()) < 0)
            return "the Wayland connection failed";
    if (!have_constraints_)
        return "kiln sent no buffer constraints for the capture";
    if (!link.connect())
        return link.error();

    VideoStream::Events stream_events;
    stream_events.streaming = [this](bool streaming) {
        streaming_ = streaming;
        if (!streaming)
            return;
        // A consumer that (re)starts gets a frame at once: on a still screen a capture session's later frames wait
        // for a change, but kiln sends a new session's first one at once.
        restart_capture_ = true;
        schedule_frame();
        // A consumer that joined while the stream was paused (the one before it had left) may not be linked yet when
        // that frame goes out: it gets the frame again a moment later, as a consumer joining a running stream does.
        if (std::exchange(resend_when_streaming_, false))
            resend_.arm_in(20'000'000u);
    };
    // New buffers hold nothing: a new capture session, whose first frame kiln sends at once (a session's later
    // frames wait for the screen to change), fills the first of them.
    stream_events.buffers_made = [this] {
        restart_capture_ = true;
        schedule_frame();
    };
    stream_ = std::make_unique<VideoStream>(link, wayland.shm(), width_, height_, shm_format_, max_fps,
                                            std::move(stream_events));
    offer_dmabuf(wayland);
    if (cursor_mode_ == cursor_metadata) {
        stream_->send_cursor_meta(true);
        cursor_ = std::make_unique<CursorCapture>(wayland, capture_->source(), [this] { cursor_changed(); });
        if (!cursor_->valid())
            std::fprintf(stderr, "kiln-portal: kiln has no seat: the stream goes without cursor metadata\n");
    }
    uint64_t deadline = now_ns() + 5'000'000'000u;
    while (stream_->valid() && stream_->node_id() == SPA_ID_INVALID && now_ns() < deadline)
        link.iterate(100);
    if (!stream_->valid() || stream_->node_id() == SPA_ID_INVALID) {
        stream_.reset();
        return "PipeWire made no node for the stream";
    }
    links_ = std::make_unique<StreamLinks>(link.core(), stream_->node_id(), [this] { consumer_joined(); });
    return {};
}

void ScreenCastSession::offer_dmabuf(WaylandOutputs& wayland) {
    const DmabufOffer& offer = capture_->dmabuf_offer();
    uint32_t fourcc = drm_fourcc(shm_format_);
    // kiln's own list, deduplicated and without DRM_FORMAT_MOD_INVALID; the consumer narrows it down.
    std::vector<uint64_t> modifiers = common_modifiers(offer.modifiers(fourcc), offer.modifiers(fourcc));
    if (!offer.device || modifiers.empty() || cursor_mode_ == cursor_metadata)
        return;  // shm only: kiln names no device (no GPU), or (cursor metadata) the frames go out as before
    std::string error;
    std::unique_ptr<DmabufDevice> device = DmabufDevice::open(*offer.device, wayland.linux_dmabuf(), error);
    if (!device) {
        std::fprintf(stderr, "kiln-portal: dma-buf frames are not offered: %s\n", error.c_str());
        return;
    }
    std::fprintf(stderr, "kiln-portal: offering dma-buf frames from %s (%zu modifiers)\n", device->path().c_str(),
                 modifiers.size());
    stream_->offer_dmabuf(std::move(device), fourcc, std::move(modifiers));
}

void ScreenCastSession::consumer_joined() {
    std::fprintf(stderr, "kiln-portal: a consumer joined node %u\n", node_id());
    // The first consumer is served when the stream starts; a later one shares the port's buffers and sees only what
    // is queued after it joined, which on a still screen is nothing until kiln sends a frame.
    // Not from inside PipeWire's event, and a moment later: sent from the link's own info event (tried), the frame
    // reached only the consumers linked before; 20 ms later it reached the new one in every run here.
    if (stream_ && capture_)
        resend_.arm_in(20'000'000u);
}

void ScreenCastSession::cursor_changed() {
    if (!stream_ || !cursor_)
        return;
    const CursorCapture::State& state = cursor_->state();
    stream_->set_cursor({state.inside, state.x, state.y, state.hotspot_x, state.hotspot_y, cursor_->image(),
                         state.image_serial});
    // The picture did not change, only the cursor: the newest frame goes out again with the new metadata.
    if (streaming_ && capture_ && !stream_->waiting())
        publish_soon();
}

void ScreenCastSession::publish_soon() {
    // After the events read with this one: kiln sends a moved pointer's frame and then its position, and two buffers
    // queued a moment apart reach a consumer as one, the first (tests/portal/cursor_meta.py): one buffer carries both.
    if (!publish_.armed())
        publish_.arm_in(0);
}

void ScreenCastSession::publish() {
    if (stream_)
        stream_->send();
    schedule_frame();  // only now: one capture in flight, after the frame before it went out
}

uint64_t ScreenCastSession::frame_interval_ns() const {
    return 1'000'000'000u / static_cast<uint64_t>(stream_ ? stream_->frame_rate() : 30);
}

void ScreenCastSession::schedule_frame() {
    if (!streaming_ || !capture_ || next_frame_.armed())
        return;
    if (restart_capture_ && stream_) {
        restart_capture_ = false;
        if (target_)
            stream_->target_failed(std::exchange(target_, nullptr));
        capture_->restart();
    }
    if (capture_->frame_pending() || publish_.armed())
        return;
    // One capture in flight, and no more of them than the consumer's frame rate.
    uint64_t now = now_ns();
    uint64_t due = last_request_ns_ + frame_interval_ns();
    next_frame_.arm_in(due > now ? due - now : 0);
}

}  // namespace portal
