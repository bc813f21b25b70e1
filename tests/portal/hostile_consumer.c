/* hostile_consumer: a PipeWire video consumer that misbehaves on purpose, for the portal suite's hostile test.
 * Usage: kiln-portal-hostile-consumer FD NODE SECONDS MODE (FD: the portal's PipeWire remote). MODE:
 *   hold    takes every buffer and never gives one back (one that never dequeues starves nobody: PipeWire
 *           hands the producer's buffers back without it);
 *   stream  takes and gives back every buffer (killed with SIGKILL while frames flow; or kept through a resize);
 *   huge    asks only for BGRx at 65535x65535;
 *   yuv     asks only for I420 (kiln-portal offers BGRx/BGRA).
 * Prints "state NAME [ERROR]" on each stream state change, "format W H" when a format is agreed, "frames N" for
 * each buffer taken and given back (stream mode) and "kept N" every 10 buffers kept (hold mode). */
#define _GNU_SOURCE /* spa/utils/string.h wants ssize_t and locale_t under a strict -std */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pipewire/pipewire.h>
#include <spa/param/video/format-utils.h>
#include <spa/pod/builder.h>

struct consumer {
    struct pw_main_loop *loop;
    struct pw_stream *stream;
    struct spa_hook listener;
    unsigned long frames;
};

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error)
{
    (void)data, (void)old;
    printf("state %s %s\n", pw_stream_state_as_string(state), error ? error : "");
    fflush(stdout);
}

static void on_param_changed(void *data, uint32_t id, const struct spa_pod *param)
{
    (void)data;
    struct spa_video_info_raw format;
    if (!param || id != SPA_PARAM_Format || spa_format_video_raw_parse(param, &format) < 0)
        return;
    printf("format %u %u\n", format.size.width, format.size.height);
    fflush(stdout);
}

static void on_process(void *data)
{
    struct consumer *consumer = data;
    struct pw_buffer *buffer;
    while ((buffer = pw_stream_dequeue_buffer(consumer->stream)) != NULL) {
        pw_stream_queue_buffer(consumer->stream, buffer);
        printf("frames %lu\n", ++consumer->frames);
        fflush(stdout);
    }
}

static void on_process_keep(void *data)
{
    struct consumer *consumer = data;
    while (pw_stream_dequeue_buffer(consumer->stream) != NULL) {
        if (++consumer->frames % 10 == 0) {
            printf("kept %lu\n", consumer->frames);
            fflush(stdout);
        }
    }
}

static void on_timeout(void *data, uint64_t expirations)
{
    (void)expirations;
    pw_main_loop_quit(((struct consumer *)data)->loop);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s FD NODE SECONDS hold|stream|huge|yuv\n", argv[0]);
        return 2;
    }
    int fd = atoi(argv[1]);
    uint32_t node = (uint32_t)strtoul(argv[2], NULL, 10);
    const char *mode = argv[4];
    pw_init(&argc, &argv);
    struct consumer consumer = {0};
    consumer.loop = pw_main_loop_new(NULL);
    struct pw_context *context = pw_context_new(pw_main_loop_get_loop(consumer.loop), NULL, 0);
    struct pw_core *core = pw_context_connect_fd(context, fd, NULL, 0);
    if (!core) {
        fprintf(stderr, "hostile_consumer: cannot connect to PipeWire through fd %d\n", fd);
        return 1;
    }
    consumer.stream = pw_stream_new(core, "kiln-hostile-consumer",
                                    pw_properties_new(PW_KEY_MEDIA_TYPE, "Video", PW_KEY_MEDIA_CATEGORY, "Capture",
                                                      PW_KEY_MEDIA_ROLE, "Screen", NULL));
    static const struct pw_stream_events holding = {PW_VERSION_STREAM_EVENTS, .state_changed = on_state_changed,
                                                    .param_changed = on_param_changed, .process = on_process_keep};
    static const struct pw_stream_events taking = {PW_VERSION_STREAM_EVENTS, .state_changed = on_state_changed,
                                                   .param_changed = on_param_changed, .process = on_process};
    pw_stream_add_listener(consumer.stream, &consumer.listener, strcmp(mode, "hold") == 0 ? &holding : &taking,
                           &consumer);

    uint8_t storage[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(storage, sizeof storage);
    struct spa_rectangle smallest = SPA_RECTANGLE(1, 1), usual = SPA_RECTANGLE(320, 240),
                         largest = SPA_RECTANGLE(8192, 8192), huge = SPA_RECTANGLE(65535, 65535);
    struct spa_fraction none = SPA_FRACTION(0, 1), rate = SPA_FRACTION(60, 1), most = SPA_FRACTION(1000, 1);
    const struct spa_pod *params[1];
    if (strcmp(mode, "huge") == 0)
        params[0] = spa_pod_builder_add_object(
            &builder, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat, SPA_FORMAT_mediaType,
            SPA_POD_Id(SPA_MEDIA_TYPE_video), SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw),
            SPA_FORMAT_VIDEO_format, SPA_POD_Id(SPA_VIDEO_FORMAT_BGRx), SPA_FORMAT_VIDEO_size,
            SPA_POD_Rectangle(&huge), SPA_FORMAT_VIDEO_framerate, SPA_POD_Fraction(&none));
    else if (strcmp(mode, "yuv") == 0)
        params[0] = spa_pod_builder_add_object(
            &builder, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat, SPA_FORMAT_mediaType,
            SPA_POD_Id(SPA_MEDIA_TYPE_video), SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw),
            SPA_FORMAT_VIDEO_format, SPA_POD_Id(SPA_VIDEO_FORMAT_I420), SPA_FORMAT_VIDEO_size,
            SPA_POD_CHOICE_RANGE_Rectangle(&usual, &smallest, &largest), SPA_FORMAT_VIDEO_framerate,
            SPA_POD_Fraction(&none));
    else
        params[0] = spa_pod_builder_add_object(
            &builder, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat, SPA_FORMAT_mediaType,
            SPA_POD_Id(SPA_MEDIA_TYPE_video), SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw),
            SPA_FORMAT_VIDEO_format,
            SPA_POD_CHOICE_ENUM_Id(3, SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_BGRA),
            SPA_FORMAT_VIDEO_size, SPA_POD_CHOICE_RANGE_Rectangle(&usual, &smallest, &largest),
            SPA_FORMAT_VIDEO_framerate, SPA_POD_Fraction(&none), SPA_FORMAT_VIDEO_maxFramerate,
            SPA_POD_CHOICE_RANGE_Fraction(&rate, &none, &most));
    if (pw_stream_connect(consumer.stream, PW_DIRECTION_INPUT, node,
                          PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS, params,
                          1) < 0) {
        fprintf(stderr, "hostile_consumer: cannot connect to node %u\n", node);
        return 1;
    }
    struct spa_source *timer = pw_loop_add_timer(pw_main_loop_get_loop(consumer.loop), on_timeout, &consumer);
    struct timespec after = {atoi(argv[3]), 0}, never = {0, 0};
    pw_loop_update_timer(pw_main_loop_get_loop(consumer.loop), timer, &after, &never, false);
    pw_main_loop_run(consumer.loop);
    printf("done frames %lu\n", consumer.frames);
    pw_stream_destroy(consumer.stream);
    pw_core_disconnect(core);
    pw_context_destroy(context);
    pw_main_loop_destroy(consumer.loop);
    pw_deinit();
    return 0;
}
