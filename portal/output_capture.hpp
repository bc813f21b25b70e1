// OutputCapture: an ext-image-copy-capture session on one output (or window), taking one frame after another into an
// ShmImage.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "shm_image.hpp"
#include "stream_formats.hpp"

struct ext_image_capture_source_v1;
struct ext_image_copy_capture_session_v1;
struct ext_image_copy_capture_frame_v1;
struct wl_array;
struct wl_buffer;
struct wl_output;

namespace portal {

class WaylandOutputs;

struct Rect {
    int32_t x, y, width, height;
};

class OutputCapture {
public:
    struct Events {
        // The buffer constraints are known (first time, or changed): size and shm format of what frames will hold.
        std::function<void(int width, int height, uint32_t shm_format)> constraints;
        // A frame is in image(), with the damage kiln reported since the previous one.
        std::function<void(const std::vector<Rect>& damage)> frame;
        // A frame failed (new constraints on the way, or kiln could not copy): a new one may be asked for.
        std::function<void()> dropped;
        // kiln ended the session (the output went away) or the connection failed.
        std::function<void()> stopped;
    };

    OutputCapture(WaylandOutputs& wayland, wl_output* output, bool paint_cursors, Events events);
    // Any capture source (a window's, from ext-foreign-toplevel-image-capture-source): taken over, destroyed here.
    OutputCapture(WaylandOutputs& wayland, ext_image_capture_source_v1* source, bool paint_cursors, Events events);
    // A session made elsewhere (a cursor session's image): taken over.
    OutputCapture(WaylandOutputs& wayland, ext_image_copy_capture_session_v1* session, Events events);
    ~OutputCapture();
    OutputCapture(const OutputCapture&) = delete;
    OutputCapture& operator=(const OutputCapture&) = delete;

    // Asks for the next frame, where none is pending and the constraints are known.
    void request_frame();
    // Asks for the next frame drawn into `buffer` (a dma-buf of the stream's) instead of image(): kiln copies what
    // changed since its last frame, and `missed` (all of it where `whole`), what this buffer lacks besides.
    void request_frame_into(wl_buffer* buffer, const std::vector<Rect>& missed, bool whole);
    // A new session on the same source (output and window captures): its first frame comes at once, where the
    // old one would wait for the screen to change. For a stream whose buffers were made anew (dma-bufs).
    void restart();
    // What kiln offers for dma-buf frames with the current constraints (no device: shm only).
    const DmabufOffer& dmabuf_offer() const { return dmabuf_; }
    bool frame_pending() const { return frame_ != nullptr; }
    const ShmImage* image() const { return image_.get(); }
    // Whether image() holds a whole frame (kiln filled it at least once since it was made).
    bool has_frame() const { return image_ && !image_fresh_; }
    ext_image_capture_source_v1* source() const { return source_; }

private:
    static void on_buffer_size(void*, ext_image_copy_capture_session_v1*, uint32_t, uint32_t) noexcept;
    static void on_shm_format(void*, ext_image_copy_capture_session_v1*, uint32_t) noexcept;
    static void on_dmabuf_device(void*, ext_image_copy_capture_session_v1*, wl_array*) noexcept;
    static void on_dmabuf_format(void*, ext_image_copy_capture_session_v1*, uint32_t, wl_array*) noexcept;
    static void on_session_done(void*, ext_image_copy_capture_session_v1*) noexcept;
    static void on_stopped(void*, ext_image_copy_capture_session_v1*) noexcept;
    static void on_transform(void*, ext_image_copy_capture_frame_v1*, uint32_t) noexcept;
    static void on_damage(void*, ext_image_copy_capture_frame_v1*, int32_t, int32_t, int32_t, int32_t) noexcept;
    static void on_presentation_time(void*, ext_image_copy_capture_frame_v1*, uint32_t, uint32_t, uint32_t) noexcept;
    static void on_ready(void*, ext_image_copy_capture_frame_v1*) noexcept;
    static void on_failed(void*, ext_image_copy_capture_frame_v1*, uint32_t) noexcept;
    void end_frame();
    void listen();

    WaylandOutputs& wayland_;
    Events events_;
    ext_image_capture_source_v1* source_ = nullptr;
    ext_image_copy_capture_session_v1* session_ = nullptr;
    uint32_t options_ = 0;  // the session's paint-cursors option, for restart()
    bool alpha_ = false;  // a cursor's picture: ARGB8888 first
    ext_image_copy_capture_frame_v1* frame_ = nullptr;
    std::unique_ptr<ShmImage> image_;
    bool image_fresh_ = true;  // a new buffer: the first frame into it is all damage
    int pending_width_ = 0, pending_height_ = 0;
    uint32_t pending_format_ = 0;
    bool has_format_ = false;
    bool stopped_ = false;
    std::vector<Rect> damage_;
    DmabufOffer pending_dmabuf_, dmabuf_;
    bool into_external_ = false;
    bool told_external_failure_ = false;  // the frame in flight goes into a buffer not ours (request_frame_into)
};

}  // namespace portal
