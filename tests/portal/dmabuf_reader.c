/* dmabuf_reader: a PipeWire video consumer that takes only SPA_DATA_DmaBuf buffers with the linear modifier (the
 * two-step modifier negotiation: it offers LINEAR and leaves fixation to the producer), maps each frame's dma-buf and
 * writes the last one as a PPM. Usage: kiln-portal-dmabuf-reader NODE SECONDS OUT.PPM (the default PipeWire remote).
 * Prints "format W H modifier M", then "frame TYPE W H" per buffer (TYPE: SPA's data type; 3 is DmaBuf). */
#define _GNU_SOURCE  /* spa/utils/string.h wants ssize_t and locale_t under a strict -std */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/dma-buf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <pipewire/pipewire.h>
#include <spa/buffer/meta.h>
#include <spa/param/video/format-utils.h>
#include <spa/pod/builder.h>

#define MOD_LINEAR 0ull

struct reader {
    struct pw_main_loop *loop;
    struct pw_stream *stream;
    struct spa_hook listener;
    struct spa_video_info_raw format;
    const char *ppm;
    unsigned frames;
};

static void on_param_changed(void *data, uint32_t id, const struct spa_pod *param)
{
    struct reader *reader = data;
    if (!param || id != SPA_PARAM_Format)
        return;
    if (spa_format_video_raw_parse(param, &reader->format) < 0)
        return;
    printf("format %u %u modifier %llx\n", reader->format.size.width, reader->format.size.height,
           (unsigned long long)reader->format.modifier);
    fflush(stdout);
    uint8_t storage[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(storage, sizeof storage);
    const struct spa_pod *params[2];
    params[0] = spa_pod_builder_add_object(&builder, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
                                           SPA_PARAM_BUFFERS_dataType, SPA_POD_CHOICE_FLAGS_Int(1 << SPA_DATA_DmaBuf));
    params[1] = spa_pod_builder_add_object(&builder, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta, SPA_PARAM_META_type,
                                           SPA_POD_Id(SPA_META_Header), SPA_PARAM_META_size,
                                           SPA_POD_Int(sizeof(struct spa_meta_header)));
    pw_stream_update_params(reader->stream, params, 2);
}

static void save(struct reader *reader, struct spa_data *plane)
{
    uint32_t width = reader->format.size.width, height = reader->format.size.height;
    int32_t stride = plane->chunk->stride > 0 ? plane->chunk->stride : (int32_t)width * 4;
    size_t size = (size_t)plane->chunk->offset + (size_t)stride * height;
    uint8_t *map = mmap(NULL, size, PROT_READ, MAP_SHARED, (int)plane->fd, 0);
    if (map == MAP_FAILED) {
        printf("mmap failed\n");
        return;
    }
    struct dma_buf_sync sync = {DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ};
    ioctl((int)plane->fd, DMA_BUF_IOCTL_SYNC, &sync);
    /* Written aside and renamed: whoever reads OUT.PPM finds a whole frame. */
    char partial[4096];
    snprintf(partial, sizeof partial, "%s.part", reader->ppm);
    FILE *out = fopen(partial, "wb");
    if (out) {
        fprintf(out, "P6\n%u %u\n255\n", width, height);
        for (uint32_t y = 0; y < height; ++y)
            for (uint32_t x = 0; x < width; ++x) {
                const uint8_t *p = map + plane->chunk->offset + (size_t)y * stride + x * 4;  /* B, G, R, x */
                uint8_t rgb[3] = {p[2], p[1], p[0]};
                fwrite(rgb, 1, 3, out);
            }
        fclose(out);
        rename(partial, reader->ppm);
    }
    sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
    ioctl((int)plane->fd, DMA_BUF_IOCTL_SYNC, &sync);
    munmap(map, size);
}

static void on_process(void *data)
{
    struct reader *reader = data;
    struct pw_buffer *buffer;
    while ((buffer = pw_stream_dequeue_buffer(reader->stream)) != NULL) {
        struct spa_data *plane = &buffer->buffer->datas[0];
        /* The frame is saved before its line is printed: a line says OUT.PPM holds that frame. */
        if (plane->type == SPA_DATA_DmaBuf && plane->chunk->size > 0) {
            save(reader, plane);
            ++reader->frames;
        }
        printf("frame %u %u %u\n", plane->type, reader->format.size.width, reader->format.size.height);
        fflush(stdout);
        pw_stream_queue_buffer(reader->stream, buffer);
    }
}

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error)
{
    (void)data, (void)old;
    printf("state %s %s\n", pw_stream_state_as_string(state), error ? error : "");
    fflush(stdout);
}

static void on_timeout(void *data, uint64_t expirations)
{
    (void)expirations;
    pw_main_loop_quit(((struct reader *)data)->loop);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s NODE SECONDS OUT.PPM\n", argv[0]);
        return 2;
    }
    uint32_t node = (uint32_t)strtoul(argv[1], NULL, 10);
    pw_init(&argc, &argv);
    struct reader reader = {0};
    reader.ppm = argv[3];
    reader.loop = pw_main_loop_new(NULL);
    struct pw_context *context = pw_context_new(pw_main_loop_get_loop(reader.loop), NULL, 0);
    struct pw_core *core = pw_context_connect(context, NULL, 0);
    if (!core) {
        fprintf(stderr, "dmabuf_reader: cannot connect to PipeWire\n");
        return 1;
    }
    reader.stream = pw_stream_new(core, "kiln-dmabuf-reader",
                                  pw_properties_new(PW_KEY_MEDIA_TYPE, "Video", PW_KEY_MEDIA_CATEGORY, "Capture",
                                                    PW_KEY_MEDIA_ROLE, "Screen", NULL));
    static const struct pw_stream_events events = {
        PW_VERSION_STREAM_EVENTS, .state_changed = on_state_changed, .param_changed = on_param_changed,
        .process = on_process};
    pw_stream_add_listener(reader.stream, &reader.listener, &events, &reader);

    uint8_t storage[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(storage, sizeof storage);
    struct spa_rectangle smallest = SPA_RECTANGLE(1, 1), usual = SPA_RECTANGLE(320, 240),
                         largest = SPA_RECTANGLE(8192, 8192);
    struct spa_fraction none = SPA_FRACTION(0, 1), rate = SPA_FRACTION(60, 1), most = SPA_FRACTION(1000, 1);
    struct spa_pod_frame frame, choice;
    spa_pod_builder_push_object(&builder, &frame, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat);
    spa_pod_builder_add(&builder, SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video), SPA_FORMAT_mediaSubtype,
                        SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw), SPA_FORMAT_VIDEO_format, SPA_POD_Id(SPA_VIDEO_FORMAT_BGRx),
                        SPA_FORMAT_VIDEO_size, SPA_POD_CHOICE_RANGE_Rectangle(&usual, &smallest, &largest),
                        SPA_FORMAT_VIDEO_framerate, SPA_POD_Fraction(&none), SPA_FORMAT_VIDEO_maxFramerate,
                        SPA_POD_CHOICE_RANGE_Fraction(&rate, &none, &most), 0);
    /* Linear only (the CPU maps it here), left to the producer to fixate. */
    spa_pod_builder_prop(&builder, SPA_FORMAT_VIDEO_modifier, SPA_POD_PROP_FLAG_MANDATORY | SPA_POD_PROP_FLAG_DONT_FIXATE);
    spa_pod_builder_push_choice(&builder, &choice, SPA_CHOICE_Enum, 0);
    spa_pod_builder_long(&builder, (int64_t)MOD_LINEAR);
    spa_pod_builder_long(&builder, (int64_t)MOD_LINEAR);
    spa_pod_builder_pop(&builder, &choice);
    const struct spa_pod *params[1] = {spa_pod_builder_pop(&builder, &frame)};
    if (pw_stream_connect(reader.stream, PW_DIRECTION_INPUT, node, PW_STREAM_FLAG_AUTOCONNECT, params, 1) < 0) {
        fprintf(stderr, "dmabuf_reader: cannot connect to node %u\n", node);
        return 1;
    }
    struct spa_source *timer = pw_loop_add_timer(pw_main_loop_get_loop(reader.loop), on_timeout, &reader);
    struct timespec after = {atoi(argv[2]), 0}, never = {0, 0};
    pw_loop_update_timer(pw_main_loop_get_loop(reader.loop), timer, &after, &never, false);
    pw_main_loop_run(reader.loop);
    printf("dmabuf frames %u\n", reader.frames);
    pw_stream_destroy(reader.stream);
    pw_core_disconnect(core);
    pw_context_destroy(context);
    pw_main_loop_destroy(reader.loop);
    pw_deinit();
    return 0;
}
