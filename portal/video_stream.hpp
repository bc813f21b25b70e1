// VideoStream: a PipeWire Video/Source node whose buffers (memfd or dma-buf) kiln captures the frames into.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <spa/utils/hook.h>

#include "dmabuf_buffers.hpp"
#include "output_capture.hpp"
#include "stream_buffer.hpp"

struct pw_buffer;
struct pw_stream;
struct spa_pod;
struct spa_pod_builder;
struct spa_buffer;
struct wl_shm;

namespace portal {

class PipeWireLink;

class VideoStream {
public:
    struct Events {
        // The consumer started (true) or paused/left (false) the stream.
        std::function<void(bool streaming)> streaming;
        // Buffers were made for the stream (after each negotiation): they hold nothing yet.
        std::function<void()> buffers_made;
    };

    // A stream of width x height frames in shm_format (XRGB8888 or ARGB8888), offered at up to max_fps; its MemFd
    // buffers are wl_shm buffers on `shm` as well, which kiln captures into.
    VideoStream(PipeWireLink& link, wl_shm* shm, int width, int height, uint32_t shm_format, int max_fps,
                Events events);
    ~VideoStream();
    VideoStream(const VideoStream&) = delete;
    VideoStream& operator=(const VideoStream&) = delete;

    bool valid() const { return stream_ != nullptr && !failed_; }
    // The node id consumers connect to; SPA_ID_INVALID until PipeWire has made the node.
    uint32_t node_id() const;
    // Frames a second the consumer asked for (the negotiated maximum): how often the capture is asked.
    int frame_rate() const { return frame_rate_; }
    // The size changed: offered again, renegotiated by the consumer.
    void resize(int width, int height, uint32_t shm_format);
    // A consumer joined the running stream: the next frame goes out whole, with the cursor's picture.
    void consumer_joined() {
        full_damage_ = true;
        sent_image_serial_ = 0;
    }
    // Cursor metadata (SPA_META_Cursor) for the frames from now on: where consumers asked for it.
    struct Cursor {
        bool visible = false;
        int32_t x = 0, y = 0, hotspot_x = 0, hotspot_y = 0;
        const ShmImage* image = nullptr;  // the picture, sent again only when image_serial grows
        uint64_t image_serial = 0;
    };
    void set_cursor(const Cursor& cursor) { cursor_ = cursor; }
    // Offers SPA_META_Cursor at negotiation: set before the loop runs after construction.
    void send_cursor_meta(bool enabled) { cursor_meta_ = enabled; }

    // dma-buf frames (SPA_DATA_DmaBuf) made on `device` with one of `modifiers` (kiln's for `fourcc`), offered
    // before the shm format; a consumer that takes only MemFd, or none of the modifiers, gets shm frames as before.
    void offer_dmabuf(std::unique_ptr<DmabufDevice> device, uint32_t fourcc, std::vector<uint64_t> modifiers);
    // The consumer took dma-buf buffers (else MemFd ones).
    bool dmabuf() const { return dmabuf_ && modifier_.has_value(); }

    // Frames are captured in place: kiln writes each into one of the stream's own buffers, dma-buf or memfd, and
    // that buffer goes to the consumer as it is.
    // The buffer the next frame is to be captured into (dequeued now, held until filled); nullptr where the
    // consumer holds them all, or none is of the current size yet.
    StreamBuffer* capture_target();
    // kiln wrote the frame into `target` (with this damage since its last frame): it goes out with send().
    void target_filled(const StreamBuffer* target, const std::vector<Rect>& damage);
    // The capture into `target` failed: it lacks everything now, and stays held for the next try.
    void target_failed(const StreamBuffer* target);
    // Queues the frame filled last, with the cursor as it is now; where none is waiting (the cursor alone
    // changed), the newest frame again, in a free memfd buffer brought up to date from the one that holds it.
    void send();
    // A send() found no free buffer (the consumer held them all).
    bool waiting() const { return resend_; }
    // Runs the graph again for it.
    void retry();

private:
    static void on_state_changed(void* data, int old_state, int state, const char* error) noexcept;
    static void on_param_changed(void* data, uint32_t id, const spa_pod* param) noexcept;
    static void on_process(void* data) noexcept;
    static void on_add_buffer(void* data, pw_buffer* buffer) noexcept;
    static void on_remove_buffer(void* data, pw_buffer* buffer) noexcept;
    void offer_format();
    uint32_t enum_formats(spa_pod_builder& builder, const spa_pod** params) const;
    void fill_meta(spa_buffer* buffer);
    bool fixate_modifier(const std::vector<uint64_t>& both);
    void add_dmabuf(pw_buffer* buffer);
    void add_memfd(pw_buffer* buffer);
    void added(pw_buffer* buffer, std::unique_ptr<StreamBuffer> made);
    void queue(pw_buffer* buffer);
    void resend_newest();
    void bring_up_to_date(StreamBuffer& target, const StreamBuffer& newest);
    void fill_cursor(spa_buffer* buffer);
    const spa_pod* enum_format(spa_pod_builder& builder) const;

    pw_stream* stream_ = nullptr;
    wl_shm* shm_;
    Events events_;
    int width_, height_;
    int negotiated_width_ = 0, negotiated_height_ = 0;  // of the format negotiated last
    uint32_t shm_format_;
    int max_fps_;
    int frame_rate_;
    bool failed_ = false;
    bool streaming_ = false;
    std::vector<Rect> damage_;
    bool full_damage_ = true;
    uint64_t sequence_ = 0;
    bool cursor_meta_ = false;
    Cursor cursor_;
    uint64_t sent_image_serial_ = 0;
    // dma-buf: the device, what we offer, the modifier we fixated (the consumer's choice otherwise).
    std::unique_ptr<DmabufDevice> device_;
    uint32_t fourcc_ = 0;
    std::vector<uint64_t> modifiers_;
    std::optional<uint64_t> fixated_;
    bool dmabuf_ = false;                 // the negotiated format is a dma-buf one
    std::optional<uint64_t> modifier_;    // and its modifier
    // The buffers (user_data: their StreamBuffer) and where they are.
    std::vector<pw_buffer*> buffers_;
    pw_buffer* held_ = nullptr;           // dequeued, being captured into
    pw_buffer* ready_ = nullptr;          // filled, waiting for process()
    pw_buffer* newest_ = nullptr;         // holds the newest frame (filled last)
    bool resend_ = false;                 // the newest frame is to go out again (process())
    // What the consumer was given, told at the end: frames kiln wrote in place, and the frames (and bytes) this
    // process copied itself (a cursor-only update into a buffer that lacked part of the newest frame).
    uint64_t frames_in_place_ = 0;
    uint64_t frames_copied_ = 0;
    uint64_t bytes_copied_ = 0;
    spa_hook listener_{};
};

}  // namespace portal
