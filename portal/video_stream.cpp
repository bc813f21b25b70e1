// VideoStream: format and buffer negotiation, the stream's own buffers (memfd wl_shm or dma-buf), and the hand-off
// of each frame kiln captured into one of them.
#include "video_stream.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <utility>

#include <pipewire/pipewire.h>
#include <spa/buffer/meta.h>
#include <spa/param/video/format-utils.h>
#include <spa/pod/builder.h>
#include <wayland-client-protocol.h>

#include "pipewire_link.hpp"
#include "stream_formats.hpp"

namespace portal {

namespace {

constexpr int kMaxDamageRects = 16;
// The largest cursor picture sent as metadata; a larger one goes without its bitmap.
constexpr int kCursorMetaSide = 64;
constexpr size_t kCursorMetaSize =
    sizeof(spa_meta_cursor) + sizeof(spa_meta_bitmap) + kCursorMetaSide * kCursorMetaSide * 4;

uint64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

VideoStream::VideoStream(PipeWireLink& link, wl_shm* shm, int width, int height, uint32_t shm_format, int max_fps,
                         Events events)
    : shm_(shm), events_(std::move(events)), width_(width), height_(height), shm_format_(shm_format), max_fps_(max_fps),
      frame_rate_(max_fps) {
    pw_properties* props = pw_properties_new(PW_KEY_MEDIA_CLASS, "Video/Source", PW_KEY_MEDIA_ROLE, "Screen",
                                             PW_KEY_NODE_NAME, "kiln-portal", nullptr);
    stream_ = pw_stream_new(link.core(), "kiln-screencast", props);
    if (!stream_)
        return;
    static const pw_stream_events stream_events = [] {
        pw_stream_events events{};
        events.version = PW_VERSION_STREAM_EVENTS;
        events.state_changed = [](void* data, pw_stream_state old_state, pw_stream_state state, const char* error) {
            on_state_changed(data, old_state, state, error);
        };
        events.param_changed = on_param_changed;
        events.process = on_process;
        events.add_buffer = on_add_buffer;
        events.remove_buffer = on_remove_buffer;
        return events;
    }();
    pw_stream_add_listener(stream_, &listener_, &stream_events, this);

    uint8_t storage[1024];
    spa_pod_builder builder = SPA_POD_BUILDER_INIT(storage, sizeof storage);
    const spa_pod* params[] = {enum_format(builder)};
    // DRIVER: frames come when kiln has them, not on a graph clock. ALLOC_BUFFERS: one memfd per buffer, made in
    // on_add_buffer and shared with kiln as a wl_shm buffer, so that kiln's capture writes the consumer's buffer
    // itself (before, each frame was captured into one buffer of ours and copied into the pw_buffer: 86 % of
    // kiln-portal's time at 1080p60, doc/benchmarks.md). Chromium's capturer (WebRTC) takes only SPA_DATA_MemFd and DmaBuf buffers and drops others
    // without a word: from the buffers PipeWire allocated for us it got no frame (tests/portal/browser_share.py).
    int result = pw_stream_connect(stream_, PW_DIRECTION_OUTPUT, PW_ID_ANY,
                                   static_cast<pw_stream_flags>(PW_STREAM_FLAG_DRIVER | PW_STREAM_FLAG_ALLOC_BUFFERS),
                                   params, 1);
    if (result < 0) {
        std::fprintf(stderr, "kiln-portal: pw_stream_connect: %s\n", std::strerror(-result));
        failed_ = true;
    }
}

VideoStream::~VideoStream() {
    // One line a stream, read by tests/portal/screencast.py: the shm frames must all be kiln's own writes.
    std::fprintf(stderr, "kiln-portal: stream ends: %llu frames captured in place, %llu frames copied (%llu bytes)\n",
                 static_cast<unsigned long long>(frames_in_place_), static_cast<unsigned long long>(frames_copied_),
                 static_cast<unsigned long long>(bytes_copied_));
    // Our listener goes first, so the stream frees its buffers without on_remove_buffer: the buffers made for
    // them are freed here, after the stream, the dma-bufs before the device they came from.
    std::vector<std::unique_ptr<StreamBuffer>> buffers;
    for (pw_buffer* buffer : buffers_)
        buffers.emplace_back(static_cast<StreamBuffer*>(buffer->user_data));
    if (stream_) {
        spa_hook_remove(&listener_);
        pw_stream_destroy(stream_);
    }
}

const spa_pod* VideoStream::enum_format(spa_pod_builder& builder) const {
    // One format and size, as kiln captures them; any frame rate up to max_fps, the consumer picks.
    return shm_format_param(builder, {video_format(shm_format_), width_, height_, max_fps_});
}

uint32_t VideoStream::enum_formats(spa_pod_builder& builder, const spa_pod** params) const {
    uint32_t count = 0;
    // dma-bufs first: a consumer that takes both prefers them; the modifier property is MANDATORY, so a consumer
    // that names no modifier matches only the shm format after it.
    if (!modifiers_.empty()) {
        FormatSpec spec{video_format(shm_format_), width_, height_, max_fps_};
        params[count++] = fixated_ ? dmabuf_format_param(builder, spec, {*fixated_}, true)
                                   : dmabuf_format_param(builder, spec, modifiers_, false);
    }
    params[count++] = enum_format(builder);
    return count;
}

uint32_t VideoStream::node_id() const { return stream_ ? pw_stream_get_node_id(stream_) : SPA_ID_INVALID; }

void VideoStream::offer_format() {
    uint8_t storage[4096];
    spa_pod_builder builder = SPA_POD_BUILDER_INIT(storage, sizeof storage);
    const spa_pod* params[2];
    uint32_t count = enum_formats(builder, params);
    pw_stream_update_params(stream_, params, count);
}

void VideoStream::offer_dmabuf(std::unique_ptr<DmabufDevice> device, uint32_t fourcc,
                               std::vector<uint64_t> modifiers) {
    device_ = std::move(device);
    fourcc_ = fourcc;
    modifiers_ = device_ ? std::move(modifiers) : std::vector<uint64_t>{};
    fixated_.reset();
    if (stream_ && !modifiers_.empty())
        offer_format();
}

bool VideoStream::fixate_modifier(const std::vector<uint64_t>& both) {
    std::optional<uint64_t> chosen = device_ ? device_->pick(fourcc_, width_, height_, both) : std::nullopt;
    if (!chosen) {
        // None of the modifiers both sides accept can be allocated here: shm from now on.
        std::fprintf(stderr, "kiln-portal: no dma-buf of the modifiers kiln and the consumer share can be made on %s;"
                             " shm frames instead\n", device_ ? device_->path().c_str() : "?");
        modifiers_.clear();
        fixated_.reset();
        offer_format();
        return false;
    }
    fixated_ = chosen;
    offer_format();
    return true;
}

void VideoStream::resize(int width, int height, uint32_t shm_format) {
    if (width == width_ && height == height_ && shm_format == shm_format_)
        return;
    width_ = width;
    height_ = height;
    shm_format_ = shm_format;
    resend_ = false;
    full_damage_ = true;
    fixated_.reset();  // the modifier is chosen again for the new size
    if (stream_)
        offer_format();
}

void VideoStream::retry() {
    if (resend_ && streaming_)
        pw_stream_trigger_process(stream_);
}

void VideoStream::on_state_changed(void* data, int old_state, int state, const char* error) noexcept {
    auto* self = static_cast<VideoStream*>(data);
    if (state != old_state)
        std::fprintf(stderr, "kiln-portal: stream %s\n", pw_stream_state_as_string(static_cast<pw_stream_state>(state)));
    if (state == PW_STREAM_STATE_ERROR) {
        std::fprintf(stderr, "kiln-portal: stream error: %s\n", error ? error : "?");
        self->failed_ = true;
    }
    bool streaming = state == PW_STREAM_STATE_STREAMING;
    if (streaming != self->streaming_) {
        self->streaming_ = streaming;
        self->full_damage_ = true;  // a consumer that (re)starts has seen nothing
        self->sent_image_serial_ = 0;  // nor the cursor's picture
        if (self->events_.streaming)
            self->events_.streaming(streaming);
    }
}

void VideoStream::on_param_changed(void* data, uint32_t id, const spa_pod* param) noexcept {
    auto* self = static_cast<VideoStream*>(data);
    if (!param || id != SPA_PARAM_Format)
        return;
    spa_video_info_raw info{};
    if (spa_format_video_raw_parse(param, &info) < 0)
        return;
    // The two-step modifier negotiation: a dma-buf format whose modifier the consumer left open is fixated here
    // (the first of the shared ones GBM can make) and offered again; the consumer then takes it, fixed.
    ModifierChoice modifiers = read_modifiers(param);
    if (modifiers.present && modifiers.dont_fixate) {
        self->fixate_modifier(common_modifiers(self->modifiers_, modifiers.values));
        return;
    }
    self->dmabuf_ = modifiers.present && !modifiers.values.empty() && self->device_;
    self->modifier_ = self->dmabuf_ ? std::optional<uint64_t>(modifiers.values.front()) : std::nullopt;
    if (self->dmabuf())
        std::fprintf(stderr, "kiln-portal: the consumer takes dma-buf frames (modifier 0x%llx)\n",
                     static_cast<unsigned long long>(*self->modifier_));
    else if (modifiers.present)
        std::fprintf(stderr, "kiln-portal: the consumer's dma-buf format names no modifier: shm frames\n");
    if (info.max_framerate.num > 0 && info.max_framerate.denom > 0)
        self->frame_rate_ = std::clamp(static_cast<int>(info.max_framerate.num / info.max_framerate.denom), 1,
                                       self->max_fps_);
    int stride = static_cast<int>(info.size.width) * 4;
    self->negotiated_width_ = static_cast<int>(info.size.width);
    self->negotiated_height_ = static_cast<int>(info.size.height);
    uint8_t storage[1024];
    spa_pod_builder builder = SPA_POD_BUILDER_INIT(storage, sizeof storage);
    const spa_pod* params[4];
    if (self->dmabuf())
        // One plane; its size and stride are the allocation's (on_add_buffer).
        params[0] = static_cast<const spa_pod*>(spa_pod_builder_add_object(
            &builder, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers, SPA_PARAM_BUFFERS_buffers,
            SPA_POD_CHOICE_RANGE_Int(4, 2, 8), SPA_PARAM_BUFFERS_blocks, SPA_POD_Int(1), SPA_PARAM_BUFFERS_dataType,
            SPA_POD_CHOICE_FLAGS_Int(1 << SPA_DATA_DmaBuf)));
    else
        params[0] = static_cast<const spa_pod*>(spa_pod_builder_add_object(
            &builder, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers, SPA_PARAM_BUFFERS_buffers,
            SPA_POD_CHOICE_RANGE_Int(4, 2, 8), SPA_PARAM_BUFFERS_blocks, SPA_POD_Int(1), SPA_PARAM_BUFFERS_size,
            SPA_POD_Int(stride * static_cast<int>(info.size.height)), SPA_PARAM_BUFFERS_stride, SPA_POD_Int(stride),
            SPA_PARAM_BUFFERS_dataType, SPA_POD_CHOICE_FLAGS_Int(1 << SPA_DATA_MemFd)));
    params[1] = static_cast<const spa_pod*>(spa_pod_builder_add_object(
        &builder, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta, SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Header),
        SPA_PARAM_META_size, SPA_POD_Int(sizeof(spa_meta_header))));
    params[2] = static_cast<const spa_pod*>(spa_pod_builder_add_object(
        &builder, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta, SPA_PARAM_META_type, SPA_POD_Id(SPA_META_VideoDamage),
        SPA_PARAM_META_size,
        SPA_POD_CHOICE_RANGE_Int(sizeof(spa_meta_region) * kMaxDamageRects, sizeof(spa_meta_region),
                                 sizeof(spa_meta_region) * kMaxDamageRects)));
    uint32_t count = 3;
    if (self->cursor_meta_)
        params[count++] = static_cast<const spa_pod*>(spa_pod_builder_add_object(
            &builder, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta, SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Cursor),
            SPA_PARAM_META_size,
            SPA_POD_CHOICE_RANGE_Int(kCursorMetaSize, sizeof(spa_meta_cursor), kCursorMetaSize)));
    pw_stream_update_params(self->stream_, params, count);
}

void VideoStream::fill_cursor(spa_buffer* buffer) {
    spa_meta* meta = spa_buffer_find_meta(buffer, SPA_META_Cursor);
    if (!meta || meta->size < sizeof(spa_meta_cursor))
        return;
    auto* cursor = static_cast<spa_meta_cursor*>(meta->data);
    // id 0: no cursor over the source (hidden, or elsewhere).
    cursor->id = cursor_.visible ? 1 : 0;
    cursor->flags = 0;
    cursor->position = SPA_POINT(cursor_.x, cursor_.y);
    cursor->hotspot = SPA_POINT(cursor_.hotspot_x, cursor_.hotspot_y);
    cursor->bitmap_offset = 0;
    const ShmImage* image = cursor_.image;
    // The picture once after it changes; then positions only (bitmap_offset 0: the consumer keeps the last).
    if (!image || !cursor_.visible || cursor_.image_serial == sent_image_serial_)
        return;
    size_t pixels = static_cast<size_t>(image->stride()) * static_cast<size_t>(image->height());
    if (meta->size < sizeof(spa_meta_cursor) + sizeof(spa_meta_bitmap) + pixels)
        return;
    sent_image_serial_ = cursor_.image_serial;
    cursor->bitmap_offset = sizeof(spa_meta_cursor);
    auto* bitmap = SPA_PTROFF(cursor, cursor->bitmap_offset, spa_meta_bitmap);
    bitmap->format = video_format(image->shm_format()) == SPA_VIDEO_FORMAT_BGRA ? SPA_VIDEO_FORMAT_BGRA
                                                                                 : SPA_VIDEO_FORMAT_BGRx;
    bitmap->size = SPA_RECTANGLE(static_cast<uint32_t>(image->width()), static_cast<uint32_t>(image->height()));
    bitmap->stride = image->stride();
    bitmap->offset = sizeof(spa_meta_bitmap);
    std::memcpy(SPA_PTROFF(bitmap, bitmap->offset, void), image->pixels(), pixels);
}

void VideoStream::on_add_buffer(void* data, pw_buffer* buffer) noexcept {
    auto* self = static_cast<VideoStream*>(data);
    spa_data& plane = buffer->buffer->datas[0];
    if (self->dmabuf()) {
        if (plane.type & (1u << SPA_DATA_DmaBuf))
            self->add_dmabuf(buffer);
        else
            std::fprintf(stderr, "kiln-portal: the consumer took dma-buf frames but not dma-buf buffers (types 0x%x)\n",
                         plane.type);
        return;
    }
    // Until here plane.type is the set of types the two sides agreed on (SPA_PARAM_BUFFERS_dataType), and the size
    // is ours to choose: the one on_param_changed asked for.
    if (plane.type & (1u << SPA_DATA_MemFd))
        self->add_memfd(buffer);
}

void VideoStream::add_memfd(pw_buffer* buffer) {
    spa_data& plane = buffer->buffer->datas[0];
    auto made = std::make_unique<StreamBuffer>();
    made->width = negotiated_width_;
    made->height = negotiated_height_;
    if (shm_ && made->width > 0 && made->height > 0)
        made->shm = std::make_unique<ShmImage>(shm_, made->width, made->height, shm_format_);
    if (!made->shm || !made->shm->valid()) {
        std::fprintf(stderr, "kiln-portal: cannot make a %dx%d memfd frame buffer: %s\n", made->width, made->height,
                     std::strerror(errno));
        return;  // no data: never captured into
    }
    const ShmImage& image = *made->shm;
    plane.type = SPA_DATA_MemFd;
    plane.flags = SPA_DATA_FLAG_READABLE;  // the consumer maps it read-only: only kiln writes it
    plane.fd = image.fd();
    plane.mapoffset = 0;
    plane.maxsize = static_cast<uint32_t>(image.size());
    plane.data = const_cast<uint8_t*>(image.pixels());
    plane.chunk->offset = 0;
    plane.chunk->stride = image.stride();
    plane.chunk->size = static_cast<uint32_t>(image.size());
    added(buffer, std::move(made));
}

void VideoStream::add_dmabuf(pw_buffer* buffer) {
    spa_data& plane = buffer->buffer->datas[0];
    std::string error;
    auto made = std::make_unique<StreamBuffer>();
    made->width = width_;
    made->height = height_;
    made->dmabuf = device_->allocate(fourcc_, width_, height_, *modifier_, error);
    if (!made->dmabuf) {
        std::fprintf(stderr, "kiln-portal: cannot make a dma-buf frame buffer: %s\n", error.c_str());
        return;  // no data: never captured into
    }
    const DmabufBuffer& dmabuf = *made->dmabuf;
    plane.type = SPA_DATA_DmaBuf;
    plane.flags = SPA_DATA_FLAG_READABLE;
    plane.fd = dmabuf.fd();
    plane.mapoffset = 0;
    plane.maxsize = dmabuf.size();
    plane.data = nullptr;
    plane.chunk->offset = dmabuf.offset();
    plane.chunk->stride = static_cast<int32_t>(dmabuf.stride());
    plane.chunk->size = dmabuf.stride() * static_cast<uint32_t>(height_);
    added(buffer, std::move(made));
}

void VideoStream::added(pw_buffer* buffer, std::unique_ptr<StreamBuffer> made) {
    buffer->user_data = made.release();
    buffers_.push_back(buffer);
    if (events_.buffers_made)
        events_.buffers_made();
}

void VideoStream::on_remove_buffer(void* data, pw_buffer* buffer) noexcept {
    auto* self = static_cast<VideoStream*>(data);
    std::unique_ptr<StreamBuffer> made(static_cast<StreamBuffer*>(buffer->user_data));
    if (!made)
        return;
    std::erase(self->buffers_, buffer);
    if (self->held_ == buffer)
        self->held_ = nullptr;  // a capture into it still in flight fails (kiln no longer finds the buffer)
    if (self->ready_ == buffer)
        self->ready_ = nullptr;
    if (self->newest_ == buffer)
        self->newest_ = nullptr;
    buffer->user_data = nullptr;
    buffer->buffer->datas[0].fd = -1;
    buffer->buffer->datas[0].data = nullptr;
}

void VideoStream::fill_meta(spa_buffer* spa) {
    if (auto* header = static_cast<spa_meta_header*>(
            spa_buffer_find_meta_data(spa, SPA_META_Header, sizeof(spa_meta_header)))) {
        header->pts = static_cast<int64_t>(now_ns());
        header->flags = 0;
        header->seq = sequence_++;
        header->dts_offset = 0;
    }
    if (spa_meta* damage = spa_buffer_find_meta(spa, SPA_META_VideoDamage)) {
        // Regions in order, ended by an empty one; more than fit become one bounding box.
        auto* regions = static_cast<spa_meta_region*>(damage->data);
        size_t room = damage->size / sizeof(spa_meta_region);
        std::vector<Rect> rects = full_damage_ ? std::vector<Rect>{{0, 0, width_, height_}}
                                                     : damage_;
        if (rects.size() >= room && !rects.empty()) {
            int32_t x0 = width_, y0 = height_, x1 = 0, y1 = 0;
            for (const Rect& r : rects) {
                x0 = std::min(x0, r.x), y0 = std::min(y0, r.y);
                x1 = std::max(x1, r.x + r.width), y1 = std::max(y1, r.y + r.height);
            }
            rects = {{x0, y0, x1 - x0, y1 - y0}};
        }
        size_t n = 0;
        for (const Rect& r : rects)
            if (n + 1 < room)
                regions[n++].region = SPA_REGION(r.x, r.y, static_cast<uint32_t>(r.width),
                                                 static_cast<uint32_t>(r.height));
        if (n < room)
            regions[n].region = SPA_REGION(0, 0, 0, 0);
    }
    if (cursor_meta_)
        fill_cursor(spa);
}

StreamBuffer* VideoStream::capture_target() {
    if (!streaming_)
        return nullptr;
    if (!held_)
        held_ = pw_stream_dequeue_buffer(stream_);
    auto* target = held_ ? static_cast<StreamBuffer*>(held_->user_data) : nullptr;
    // One whose allocation failed, or of the size before a resize the consumer has not renegotiated yet.
    if (held_ && (!target || target->width != width_ || target->height != height_)) {
        pw_stream_return_buffer(stream_, held_);
        held_ = nullptr;
        target = nullptr;
    }
    return target;
}

void VideoStream::target_filled(const StreamBuffer* target, const std::vector<Rect>& damage) {
    if (!held_ || held_->user_data != target)
        return;  // renegotiated while kiln drew: the buffer is gone
    // The other buffers lack what changed in this frame; more regions than are worth sending make them whole.
    for (pw_buffer* other : buffers_) {
        auto* buffer = static_cast<StreamBuffer*>(other->user_data);
        if (other == held_ || buffer->whole)
            continue;
        buffer->missed.insert(buffer->missed.end(), damage.begin(), damage.end());
        if (buffer->missed.size() > kMaxDamageRects) {
            buffer->whole = true;
            buffer->missed.clear();
        }
    }
    auto* filled = static_cast<StreamBuffer*>(held_->user_data);
    filled->whole = false;
    filled->missed.clear();
    if (filled->shm)
        ++frames_in_place_;
    damage_.insert(damage_.end(), damage.begin(), damage.end());
    if (ready_)
        pw_stream_return_buffer(stream_, ready_);  // not taken yet: the newer frame replaces it
    ready_ = held_;
    newest_ = held_;
    held_ = nullptr;
}

void VideoStream::target_failed(const StreamBuffer* target) {
    if (!held_ || held_->user_data != target)
        return;
    static_cast<StreamBuffer*>(held_->user_data)->whole = true;
    if (newest_ == held_)
        newest_ = nullptr;  // what it holds is not known now
}

void VideoStream::send() {
    if (!streaming_)
        return;
    if (!ready_)
        resend_ = true;
    pw_stream_trigger_process(stream_);
}

void VideoStream::queue(pw_buffer* buffer) {
    auto* made = static_cast<StreamBuffer*>(buffer->user_data);
    spa_data& plane = buffer->buffer->datas[0];
    if (made->shm) {
        // The chunk is shared with the consumer: written again for every frame.
        plane.chunk->offset = 0;
        plane.chunk->stride = made->shm->stride();
        plane.chunk->size = static_cast<uint32_t>(made->shm->size());
        plane.chunk->flags = SPA_CHUNK_FLAG_NONE;
    }
    fill_meta(buffer->buffer);
    damage_.clear();
    full_damage_ = false;
    pw_stream_queue_buffer(stream_, buffer);
}

void VideoStream::bring_up_to_date(StreamBuffer& target, const StreamBuffer& newest) {
    const ShmImage& from = *newest.shm;
    ShmImage& to = *target.shm;
    auto copy_rows = [&](int x, int y, int width, int height) {
        x = std::clamp(x, 0, from.width()), y = std::clamp(y, 0, from.height());
        width = std::clamp(width, 0, from.width() - x), height = std::clamp(height, 0, from.height() - y);
        size_t offset = static_cast<size_t>(y) * static_cast<size_t>(from.stride()) + static_cast<size_t>(x) * 4;
        for (int row = 0; row < height; ++row) {
            size_t at = offset + static_cast<size_t>(row) * static_cast<size_t>(from.stride());
            std::memcpy(to.pixels() + at, from.pixels() + at, static_cast<size_t>(width) * 4);
        }
        bytes_copied_ += static_cast<uint64_t>(width) * static_cast<uint64_t>(height) * 4;
    };
    uint64_t before = bytes_copied_;
    if (target.whole)
        copy_rows(0, 0, from.width(), from.height());
    else
        for (const Rect& r : target.missed)
            copy_rows(r.x, r.y, r.width, r.height);
    if (bytes_copied_ != before)
        ++frames_copied_;
    target.whole = false;
    target.missed.clear();
}

void VideoStream::resend_newest() {
    auto* newest = newest_ ? static_cast<StreamBuffer*>(newest_->user_data) : nullptr;
    // Nothing to send again: no frame yet, one of another size, or a dma-buf (not mapped here). The buffer that
    // holds it may be the one a capture waits on (a still screen): kiln writes it only when the frame is ready, and
    // a copy that overlaps that write is followed by the whole frame at once.
    if (!newest || !newest->shm || newest->width != width_ || newest->height != height_) {
        resend_ = false;
        return;
    }
    pw_buffer* buffer = pw_stream_dequeue_buffer(stream_);
    if (!buffer)
        return;  // the consumer holds them all: retry() at the frame rate
    auto* target = static_cast<StreamBuffer*>(buffer->user_data);
    if (!target || !target->shm || target->width != newest->width || target->height != newest->height) {
        pw_stream_return_buffer(stream_, buffer);
        resend_ = false;
        return;
    }
    if (buffer != newest_)
        bring_up_to_date(*target, *newest);
    resend_ = false;
    newest_ = buffer;
    queue(buffer);
}

void VideoStream::on_process(void* data) noexcept {
    auto* self = static_cast<VideoStream*>(data);
    if (self->ready_) {
        self->resend_ = false;  // the newer frame goes instead, with the cursor as it is now
        self->queue(std::exchange(self->ready_, nullptr));
        return;
    }
    if (self->resend_)
        self->resend_newest();
}

}  // namespace portal
