// VideoStream: format and buffer negotiation, and the copy of each captured frame into a dequeued pw_buffer.
#include "video_stream.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

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

VideoStream::VideoStream(PipeWireLink& link, int width, int height, uint32_t shm_format, int max_fps, Events events)
    : events_(std::move(events)), width_(width), height_(height), shm_format_(shm_format), max_fps_(max_fps),
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
    // on_add_buffer. Chromium's capturer (WebRTC) takes only SPA_DATA_MemFd and DmaBuf buffers and drops others
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
    // Our listener goes first, so the stream frees its buffers without on_remove_buffer: the dma-bufs made for
    // them are freed here, after the stream, before the device they came from.
    std::vector<DmabufBuffer*> dmabufs;
    for (pw_buffer* buffer : dmabuf_buffers_)
        dmabufs.push_back(static_cast<DmabufBuffer*>(buffer->user_data));
    if (stream_) {
        spa_hook_remove(&listener_);
        pw_stream_destroy(stream_);
    }
    for (DmabufBuffer* dmabuf : dmabufs)
        delete dmabuf;
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
    pending_ = nullptr;
    full_damage_ = true;
    fixated_.reset();  // the modifier is chosen again for the new size
    if (stream_)
        offer_format();
}

void VideoStream::publish(const ShmImage& image, const std::vector<Rect>& damage) {
    if (image.width() != width_ || image.height() != height_)
        return;  // from before a resize the consumer has not negotiated yet
    if (dmabuf())
        return;  // frames are drawn into the consumer's dma-bufs (dmabuf_filled)
    damage_.insert(damage_.end(), damage.begin(), damage.end());
    pending_ = &image;
    if (streaming_)
        pw_stream_trigger_process(stream_);
}

void VideoStream::retry() {
    if (pending_ && streaming_)
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
    self->pending_ = self->dmabuf() ? nullptr : self->pending_;
    if (info.max_framerate.num > 0 && info.max_framerate.denom > 0)
        self->frame_rate_ = std::clamp(static_cast<int>(info.max_framerate.num / info.max_framerate.denom), 1,
                                       self->max_fps_);
    int stride = static_cast<int>(info.size.width) * 4;
    self->buffer_size_ = static_cast<uint32_t>(stride) * info.size.height;
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
    if (!(plane.type & (1u << SPA_DATA_MemFd)) || self->buffer_size_ == 0)
        return;
    plane.maxsize = self->buffer_size_;
    int fd = memfd_create("kiln-portal-frame", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return;
    void* pixels = MAP_FAILED;
    if (ftruncate(fd, plane.maxsize) == 0) {
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);  // the consumer maps it all, always
        pixels = mmap(nullptr, plane.maxsize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    if (pixels == MAP_FAILED) {
        std::fprintf(stderr, "kiln-portal: cannot make a %u-byte memfd buffer: %s\n", plane.maxsize,
                     std::strerror(errno));
        close(fd);
        plane.maxsize = 0;
        return;  // no data: on_process hands it back empty
    }
    plane.type = SPA_DATA_MemFd;
    plane.flags = SPA_DATA_FLAG_READWRITE;
    plane.fd = fd;
    plane.mapoffset = 0;
    plane.data = pixels;
}

void VideoStream::add_dmabuf(pw_buffer* buffer) {
    spa_data& plane = buffer->buffer->datas[0];
    std::string error;
    std::unique_ptr<DmabufBuffer> made = device_->allocate(fourcc_, width_, height_, *modifier_, error);
    if (!made) {
        std::fprintf(stderr, "kiln-portal: cannot make a dma-buf frame buffer: %s\n", error.c_str());
        return;  // no data: never captured into
    }
    plane.type = SPA_DATA_DmaBuf;
    plane.flags = SPA_DATA_FLAG_READABLE;
    plane.fd = made->fd();
    plane.mapoffset = 0;
    plane.maxsize = made->size();
    plane.data = nullptr;
    plane.chunk->offset = made->offset();
    plane.chunk->stride = static_cast<int32_t>(made->stride());
    plane.chunk->size = made->stride() * static_cast<uint32_t>(height_);
    buffer->user_data = made.release();
    dmabuf_buffers_.push_back(buffer);
    if (events_.dmabuf_buffers)
        events_.dmabuf_buffers();
}

void VideoStream::on_remove_buffer(void* data, pw_buffer* buffer) noexcept {
    auto* self = static_cast<VideoStream*>(data);
    if (auto* dmabuf = static_cast<DmabufBuffer*>(buffer->user_data)) {
        std::erase(self->dmabuf_buffers_, buffer);
        if (self->held_ == buffer)
            self->held_ = nullptr;  // a capture into it still in flight fails (kiln no longer finds the buffer)
        if (self->ready_ == buffer)
            self->ready_ = nullptr;
        buffer->user_data = nullptr;
        delete dmabuf;
        buffer->buffer->datas[0].fd = -1;
        return;
    }
    spa_data& plane = buffer->buffer->datas[0];
    if (plane.type != SPA_DATA_MemFd || !plane.data)
        return;
    munmap(plane.data, plane.maxsize);
    close(static_cast<int>(plane.fd));
    plane.data = nullptr;
    plane.fd = -1;
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

DmabufBuffer* VideoStream::dmabuf_target() {
    if (!dmabuf() || !streaming_)
        return nullptr;
    if (!held_)
        held_ = pw_stream_dequeue_buffer(stream_);
    auto* target = held_ ? static_cast<DmabufBuffer*>(held_->user_data) : nullptr;
    if (held_ && !target) {
        pw_stream_return_buffer(stream_, held_);  // one whose allocation failed
        held_ = nullptr;
    }
    return target;
}

void VideoStream::dmabuf_filled(const DmabufBuffer* target, const std::vector<Rect>& damage) {
    if (!held_ || held_->user_data != target)
        return;  // renegotiated while kiln drew: the buffer is gone
    // The other buffers lack what changed in this frame; more regions than are worth sending make them whole.
    for (pw_buffer* other : dmabuf_buffers_) {
        auto* buffer = static_cast<DmabufBuffer*>(other->user_data);
        if (other == held_ || buffer->whole)
            continue;
        buffer->missed.insert(buffer->missed.end(), damage.begin(), damage.end());
        if (buffer->missed.size() > kMaxDamageRects) {
            buffer->whole = true;
            buffer->missed.clear();
        }
    }
    auto* filled = static_cast<DmabufBuffer*>(held_->user_data);
    filled->whole = false;
    filled->missed.clear();
    damage_.insert(damage_.end(), damage.begin(), damage.end());
    if (ready_)
        pw_stream_return_buffer(stream_, ready_);  // not taken yet: the newer frame replaces it
    ready_ = held_;
    held_ = nullptr;
    pw_stream_trigger_process(stream_);
}

void VideoStream::dmabuf_failed(const DmabufBuffer* target) {
    if (held_ && held_->user_data == target)
        static_cast<DmabufBuffer*>(held_->user_data)->whole = true;
}

void VideoStream::on_process(void* data) noexcept {
    auto* self = static_cast<VideoStream*>(data);
    if (self->ready_) {
        pw_buffer* ready = self->ready_;
        self->ready_ = nullptr;
        self->fill_meta(ready->buffer);
        self->damage_.clear();
        self->full_damage_ = false;
        pw_stream_queue_buffer(self->stream_, ready);
        return;
    }
    if (!self->pending_)
        return;
    pw_buffer* buffer = pw_stream_dequeue_buffer(self->stream_);
    if (!buffer)
        return;  // the consumer holds them all: this frame is skipped, its damage kept for the next
    const ShmImage& image = *self->pending_;
    spa_buffer* spa = buffer->buffer;
    spa_data& plane = spa->datas[0];
    int stride = image.stride();
    size_t size = static_cast<size_t>(stride) * static_cast<size_t>(image.height());
    if (!plane.data || plane.maxsize < size) {
        // Buffers of the old size, before renegotiation: hand it back empty.
        plane.chunk->size = 0;
        pw_stream_queue_buffer(self->stream_, buffer);
        return;
    }
    std::memcpy(plane.data, image.pixels(), size);
    plane.chunk->offset = 0;
    plane.chunk->size = static_cast<uint32_t>(size);
    plane.chunk->stride = stride;
    plane.chunk->flags = SPA_CHUNK_FLAG_NONE;

    self->fill_meta(spa);
    self->damage_.clear();
    self->full_damage_ = false;
    self->pending_ = nullptr;
    pw_stream_queue_buffer(self->stream_, buffer);
}

}  // namespace portal
