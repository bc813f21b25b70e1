// ScreenCastSession: one portal session: the chosen output's or window's capture and the PipeWire stream it feeds.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <systemd/sd-bus.h>

#include "event_loop.hpp"
#include "cursor_capture.hpp"
#include "output_capture.hpp"
#include "restore_data.hpp"
#include "stream_links.hpp"
#include "video_stream.hpp"

struct ext_image_capture_source_v1;


namespace portal {

class PipeWireLink;
class WaylandOutputs;
struct Output;

enum CursorMode : uint32_t { cursor_hidden = 1, cursor_embedded = 2, cursor_metadata = 4 };
enum SourceType : uint32_t { source_monitor = 1, source_window = 2 };

class ScreenCastSession {
public:
    ScreenCastSession(sd_bus* bus, std::string path, std::string app_id, EventLoop& loop);
    ~ScreenCastSession();
    ScreenCastSession(const ScreenCastSession&) = delete;
    ScreenCastSession& operator=(const ScreenCastSession&) = delete;

    const std::string& path() const { return path_; }
    const std::string& app_id() const { return app_id_; }
    // SelectSources: what to share, and what the app shared before (restore_data; type 0 where none).
    void select(uint32_t cursor_mode, SourceType type, uint32_t persist_mode, SourceChoice restore) {
        cursor_mode_ = cursor_mode;
        source_type_ = type;
        persist_mode_ = persist_mode;
        restore_ = std::move(restore);
    }
    uint32_t persist_mode() const { return persist_mode_; }
    const SourceChoice& restore() const { return restore_; }
    uint32_t cursor_mode() const { return cursor_mode_; }
    SourceType source_type() const { return source_type_; }
    // Starts capturing `source` (an output's or a window's, taken over) into a new stream; empty on success, else
    // why it could not.
    std::string start(WaylandOutputs& wayland, PipeWireLink& link, ext_image_capture_source_v1* source, int max_fps);
    bool started() const { return stream_ != nullptr; }
    uint32_t node_id() const { return stream_ ? stream_->node_id() : 0; }
    int width() const { return width_; }
    int height() const { return height_; }
    // Closed by the frontend (Session.Close) or ended here (the output went, the stream failed): to be dropped.
    bool closed() const { return closed_; }
    // Ends it from this side: tells the frontend with Session.Closed.
    void end(const char* why);

private:
    static int on_close(sd_bus_message* message, void* data, sd_bus_error* error) noexcept;
    void schedule_frame();
    void cursor_changed();
    // Another consumer linked to the running stream: the frame held goes out again, whole, for it.
    void consumer_joined();
    // The frame filled last (or the cursor alone: the newest frame again), with the cursor as it is after this
    // round of events, to the stream.
    void publish_soon();
    void publish();
    // Offers dma-buf frames to the consumer where kiln's capture names a device GBM can allocate on.
    void offer_dmabuf(WaylandOutputs& wayland);
    uint64_t frame_interval_ns() const;

    sd_bus* bus_;
    std::string path_;
    std::string app_id_;
    EventLoop& loop_;
    uint32_t cursor_mode_ = cursor_hidden;
    SourceType source_type_ = source_monitor;
    uint32_t persist_mode_ = 0;
    SourceChoice restore_;
    bool closed_ = false;
    bool streaming_ = false;
    int width_ = 0, height_ = 0;
    uint32_t shm_format_ = 0;
    bool have_constraints_ = false;
    uint64_t last_request_ns_ = 0;
    sd_bus_slot* slot_ = nullptr;
    std::unique_ptr<OutputCapture> capture_;
    std::unique_ptr<CursorCapture> cursor_;  // cursor_mode metadata only
    std::unique_ptr<VideoStream> stream_;
    std::unique_ptr<StreamLinks> links_;  // consumers linked to stream_'s node; gone before it
    const StreamBuffer* target_ = nullptr;  // the stream's buffer the frame in flight is captured into
    bool restart_capture_ = false;  // buffers made anew, or a consumer joined: the next frame from a new session
    bool resend_when_streaming_ = false;  // a consumer joined a paused stream: resend once it streams again
    Timer next_frame_;
    Timer publish_;
    Timer resend_;  // the frame held, again, for a consumer that joined
};

}  // namespace portal
