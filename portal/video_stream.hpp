// VideoStream: a PipeWire Video/Source node that publishes the frames of one ShmImage in MemFd buffers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <spa/utils/hook.h>

#include "dmabuf_buffers.hpp"
#include "output_capture.hpp"

struct pw_buffer;
struct pw_stream;
struct spa_pod;
struct spa_pod_builder;
struct spa_buffer;

namespace portal {

class PipeWireLink;

class VideoStream {
public:
    struct Events {
        // The consumer started (true) or paused/left (false) the stream.
        std::function<void(bool streaming)> streaming;
        // dma-buf buffers were made for the stream (after each negotiation).
        std::function<void()> dmabuf_buffers;
    };

    // A stream of width x height frames in shm_format (XRGB8888 or ARGB8888), offered at up to max_fps.
    VideoStream(PipeWireLink& link, int width, int height, uint32_t shm_format, int max_fps, Events events);
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
    // Publishes image as the next frame; damage (in its pixels) is added to what the consumer has not seen yet.
    void publish(const ShmImage& image, const std::vector<Rect>& damage);
    // A published frame no buffer has taken yet (the consumer held them all, or was not streaming).
    bool waiting() const { return pending_ != nullptr; }
    // Runs the graph again for the waiting frame.
    void retry();
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
    // The consumer took dma-buf buffers: frames are captured into them (dmabuf_target), not published from shm.
    bool dmabuf() const { return dmabuf_ && modifier_.has_value(); }
    // The buffer the next frame is to be captured into (dequeued now, held until filled); nullptr where the
    // consumer holds them all.
    DmabufBuffer* dmabuf_target();
    // kiln drew the frame into `target` (with this damage since its last frame): it goes to the consumer.
    void dmabuf_filled(const DmabufBuffer* target, const std::vector<Rect>& damage);
    // The capture into `target` failed: it lacks everything now, and stays held for the next try.
    void dmabuf_failed(const DmabufBuffer* target);

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
    void fill_cursor(spa_buffer* buffer);
    const spa_pod* enum_format(spa_pod_builder& builder) const;

    pw_stream* stream_ = nullptr;
    Events events_;
    int width_, height_;
    uint32_t buffer_size_ = 0;  // bytes of one buffer for the format negotiated last
    uint32_t shm_format_;
    int max_fps_;
    int frame_rate_;
    bool failed_ = false;
    bool streaming_ = false;
    const ShmImage* pending_ = nullptr;  // a frame waiting for process()
    std::vector<Rect> damage_;
    bool full_damage_ = true;
    uint64_t sequence_ = 0;
    bool cursor_meta_ = false;
    Cursor cursor_;
    uint64_t sent_image_serial_ = 0;
    // dma-buf: the device, what we offer, the modifier we fixated (the consumer's choice otherwise), the buffers.
    std::unique_ptr<DmabufDevice> device_;
    uint32_t fourcc_ = 0;
    std::vector<uint64_t> modifiers_;
    std::optional<uint64_t> fixated_;
    bool dmabuf_ = false;                 // the negotiated format is a dma-buf one
    std::optional<uint64_t> modifier_;    // and its modifier
    pw_buffer* held_ = nullptr;           // dequeued, being captured into
    pw_buffer* ready_ = nullptr;          // filled, waiting for process()
    std::vector<pw_buffer*> dmabuf_buffers_;
    spa_hook listener_{};
};

}  // namespace portal
