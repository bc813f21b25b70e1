/* cursor_meta_reader: a PipeWire video consumer that prints each buffer's frame and SPA_META_Cursor, for the portal
 * suite's cursor test. Usage: kiln-portal-cursor-reader FD NODE SECONDS (FD: the portal's PipeWire remote). Prints
 * "frame W H nonblack N", "cursor ID X Y HOTX HOTY" and, where a buffer carries the picture, "bitmap W H OPAQUE". */
#define _GNU_SOURCE  /* spa/utils/string.h wants ssize_t and locale_t under a strict -std */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pipewire/pipewire.h>
#include <spa/buffer/meta.h>
#include <spa/param/video/format-utils.h>
#include <spa/pod/builder.h>

struct reader {
    struct pw_main_loop *loop;
    struct pw_stream *stream;
    struct spa_hook listener;
    struct spa_video_info_raw format;
};

static void on_param_changed(void *data, uint32_t id, const struct spa_pod *param)
{
    struct reader *reader = data;
    if (!param || id != SPA_PARAM_Format)
        return;
    if (spa_format_video_raw_parse(param, &reader->format) < 0)
        return;
    uint8_t storage[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(storage, sizeof storage);
    const struct spa_pod *params[2];
    params[0] = spa_pod_builder_add_object(&builder, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta, SPA_PARAM_META_type,
                                           SPA_POD_Id(SPA_META_Header), SPA_PARAM_META_size,
                                           SPA_POD_Int(sizeof(struct spa_meta_header)));
    int most = sizeof(struct spa_meta_cursor) + sizeof(struct spa_meta_bitmap) + 256 * 256 * 4;
    params[1] = spa_pod_builder_add_object(&builder, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta, SPA_PARAM_META_type,
                                           SPA_POD_Id(SPA_META_Cursor), SPA_PARAM_META_size,
                                           SPA_POD_CHOICE_RANGE_Int(most, (int)sizeof(struct spa_meta_cursor), most));
    pw_stream_update_params(reader->stream, params, 2);
}

static void print_buffer(struct reader *reader, struct pw_buffer *buffer)
{
    struct spa_buffer *spa = buffer->buffer;
    struct spa_data *plane = &spa->datas[0];
    if (plane->data && plane->chunk->size > 0) {
        uint32_t width = reader->format.size.width, height = reader->format.size.height;
        int32_t stride = plane->chunk->stride > 0 ? plane->chunk->stride : (int32_t)width * 4;
        unsigned long nonblack = 0;
        const uint8_t *pixels = SPA_PTROFF(plane->data, plane->chunk->offset, const uint8_t);
        for (uint32_t y = 0; y < height && (y + 1) * (uint32_t)stride <= plane->chunk->size; ++y)
            for (uint32_t x = 0; x < width; ++x) {
                const uint8_t *p = pixels + y * stride + x * 4;
                if (p[0] || p[1] || p[2])
                    ++nonblack;
            }
        printf("frame %u %u nonblack %lu\n", width, height, nonblack);
    }
    struct spa_meta_cursor *cursor = spa_buffer_find_meta_data(spa, SPA_META_Cursor, sizeof *cursor);
    if (cursor) {
        printf("cursor %u %d %d %d %d\n", cursor->id, cursor->position.x, cursor->position.y, cursor->hotspot.x,
               cursor->hotspot.y);
        if (cursor->id != 0 && cursor->bitmap_offset >= sizeof *cursor) {
            struct spa_meta_bitmap *bitmap = SPA_PTROFF(cursor, cursor->bitmap_offset, struct spa_meta_bitmap);
            const uint8_t *pixels = SPA_PTROFF(bitmap, bitmap->offset, const uint8_t);
            unsigned long opaque = 0;
            for (uint32_t y = 0; y < bitmap->size.height; ++y)
                for (uint32_t x = 0; x < bitmap->size.width; ++x)
                    if (pixels[y * bitmap->stride + x * 4 + 3])
                        ++opaque;
            printf("bitmap %u %u %lu\n", bitmap->size.width, bitmap->size.height, opaque);
        }
    }
    fflush(stdout);
}

static void on_process(void *data)
{
    /* Every buffer that arrived: one process() may stand for several. */
    struct reader *reader = data;
    struct pw_buffer *buffer;
    while ((buffer = pw_stream_dequeue_buffer(reader->stream)) != NULL) {
        print_buffer(reader, buffer);
        pw_stream_queue_buffer(reader->stream, buffer);
    }
}

static void on_timeout(void *data, uint64_t expirations)
{
    (void)expirations;
    pw_main_loop_quit(((struct reader *)data)->loop);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s FD NODE SECONDS\n", argv[0]);
        return 2;
    }
    int fd = atoi(argv[1]);
    uint32_t node = (uint32_t)strtoul(argv[2], NULL, 10);
    pw_init(&argc, &argv);
    struct reader reader = {0};
    reader.loop = pw_main_loop_new(NULL);
    struct pw_context *context = pw_context_new(pw_main_loop_get_loop(reader.loop), NULL, 0);
    struct pw_core *core = pw_context_connect_fd(context, fd, NULL, 0);
    if (!core) {
        fprintf(stderr, "cursor_meta_reader: cannot connect to PipeWire through fd %d\n", fd);
        return 1;
    }
    reader.stream = pw_stream_new(core, "kiln-cursor-reader",
                                  pw_properties_new(PW_KEY_MEDIA_TYPE, "Video", PW_KEY_MEDIA_CATEGORY, "Capture",
                                                    PW_KEY_MEDIA_ROLE, "Screen", NULL));
    static const struct pw_stream_events events = {
        PW_VERSION_STREAM_EVENTS, .param_changed = on_param_changed, .process = on_process};
    pw_stream_add_listener(reader.stream, &reader.listener, &events, &reader);

    uint8_t storage[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(storage, sizeof storage);
    struct spa_rectangle smallest = SPA_RECTANGLE(1, 1), usual = SPA_RECTANGLE(320, 240),
                         largest = SPA_RECTANGLE(8192, 8192);
    struct spa_fraction none = SPA_FRACTION(0, 1), rate = SPA_FRACTION(60, 1), most = SPA_FRACTION(1000, 1);
    const struct spa_pod *params[1];
    params[0] = spa_pod_builder_add_object(
        &builder, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat, SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
        SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw), SPA_FORMAT_VIDEO_format,
        SPA_POD_CHOICE_ENUM_Id(3, SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_BGRA),
        SPA_FORMAT_VIDEO_size, SPA_POD_CHOICE_RANGE_Rectangle(&usual, &smallest, &largest),
        SPA_FORMAT_VIDEO_framerate, SPA_POD_Fraction(&none), SPA_FORMAT_VIDEO_maxFramerate,
        SPA_POD_CHOICE_RANGE_Fraction(&rate, &none, &most));
    if (pw_stream_connect(reader.stream, PW_DIRECTION_INPUT, node,
                          PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS, params, 1) < 0) {
        fprintf(stderr, "cursor_meta_reader: cannot connect to node %u\n", node);
        return 1;
    }
    struct spa_source *timer = pw_loop_add_timer(pw_main_loop_get_loop(reader.loop), on_timeout, &reader);
    struct timespec after = {atoi(argv[3]), 0}, never = {0, 0};
    pw_loop_update_timer(pw_main_loop_get_loop(reader.loop), timer, &after, &never, false);
    pw_main_loop_run(reader.loop);
    pw_stream_destroy(reader.stream);
    pw_core_disconnect(core);
    pw_context_destroy(context);
    pw_main_loop_destroy(reader.loop);
    pw_deinit();
    return 0;
}
