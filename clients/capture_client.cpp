// kiln-capture-client: captures an output through ext-image-copy-capture into a wl_shm buffer or a dma-buf it
// allocates itself (GBM or udmabuf, linear XRGB8888), maps the result and writes it as a PPM, with what the session
// offered and how each frame ended on stdout, for tests to compare.
#include "clients/dmabuf_allocator.hpp"
#include "clients/shm_buffer.hpp"

#include "ext-image-capture-source-v1-client-protocol.h"
#include "ext-image-copy-capture-v1-client-protocol.h"
#include "linux-dmabuf-v1-client-protocol.h"

#include <drm_fourcc.h>
#include <gbm.h>
#include <linux/dma-buf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <wayland-client.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr const char* usage = R"(Usage: kiln-capture-client [--buffer shm|dmabuf] [--source gbm|udmabuf] [--device PATH]
                           [--frames N] [--size WxH] [--ppm PATH]
Captures the first output through ext-image-copy-capture-v1 --frames times (default 1) into one buffer: wl_shm
XRGB8888, or a linear XRGB8888 dma-buf (GBM by default) sent through linux-dmabuf. Prints the session's constraints
("size W H", "shm FOURCC", "dmabuf_device MAJ:MIN", "dmabuf_format FOURCC MOD,MOD"), then "frame N ready" or
"frame N failed REASON", and writes the last ready frame's pixels to --ppm. --size allocates a buffer of another
size than the session asks for (a constraints test). Exit: 0 every frame ready, 1 a frame failed, 2 the compositor
lacks something needed, 77 no dma-buf allocator on this machine.
)";

struct State {
    wl_shm* shm = nullptr;
    zwp_linux_dmabuf_v1* dmabuf = nullptr;
    wl_output* output = nullptr;
    ext_output_image_capture_source_manager_v1* sources = nullptr;
    ext_image_copy_capture_manager_v1* manager = nullptr;
    // Constraints.
    uint32_t width = 0;
    uint32_t height = 0;
    bool done = false;
    bool stopped = false;
    bool has_device = false;
    std::vector<uint64_t> xrgb_modifiers;
    // The frame.
    bool ended = false;
    bool ready = false;
    uint32_t reason = 0;
};

void global(void* data, wl_registry* registry, uint32_t name, const char* interface, uint32_t version)
{
    auto* s = static_cast<State*>(data);
    const std::string i = interface;
    if (i == wl_shm_interface.name)
        s->shm = static_cast<wl_shm*>(wl_registry_bind(registry, name, &wl_shm_interface, 1));
    else if (i == zwp_linux_dmabuf_v1_interface.name && version >= 3)
        s->dmabuf = static_cast<zwp_linux_dmabuf_v1*>(wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface, 3));
    else if (i == wl_output_interface.name && !s->output)
        s->output = static_cast<wl_output*>(wl_registry_bind(registry, name, &wl_output_interface, 1));
    else if (i == ext_output_image_capture_source_manager_v1_interface.name)
        s->sources = static_cast<ext_output_image_capture_source_manager_v1*>(
            wl_registry_bind(registry, name, &ext_output_image_capture_source_manager_v1_interface, 1));
    else if (i == ext_image_copy_capture_manager_v1_interface.name)
        s->manager = static_cast<ext_image_copy_capture_manager_v1*>(
            wl_registry_bind(registry, name, &ext_image_copy_capture_manager_v1_interface, 1));
}

const wl_registry_listener registry_listener = {global, [](void*, wl_registry*, uint32_t) {}};

const ext_image_copy_capture_session_v1_listener session_listener = {
    .buffer_size = [](void* data, ext_image_copy_capture_session_v1*, uint32_t w, uint32_t h) {
        auto* s = static_cast<State*>(data);
        s->width = w;
        s->height = h;
        std::printf("size %u %u\n", w, h);
    },
    .shm_format = [](void*, ext_image_copy_capture_session_v1*, uint32_t format) { std::printf("shm %08x\n", format); },
    .dmabuf_device = [](void* data, ext_image_copy_capture_session_v1*, wl_array* device) {
        dev_t dev = 0;
        if (device->size >= sizeof(dev))
            std::memcpy(&dev, device->data, sizeof(dev));
        static_cast<State*>(data)->has_device = true;
        std::printf("dmabuf_device %u:%u\n", major(dev), minor(dev));
    },
    .dmabuf_format = [](void* data, ext_image_copy_capture_session_v1*, uint32_t format, wl_array* modifiers) {
        auto* s = static_cast<State*>(data);
        std::string list;
        const auto* m = static_cast<const uint64_t*>(modifiers->data);
        for (size_t i = 0; i < modifiers->size / sizeof(uint64_t); ++i) {
            char text[24];
            std::snprintf(text, sizeof text, "%s%llx", i ? "," : "", static_cast<unsigned long long>(m[i]));
            list += text;
            if (format == DRM_FORMAT_XRGB8888)
                s->xrgb_modifiers.push_back(m[i]);
        }
        std::printf("dmabuf_format %08x %s\n", format, list.c_str());
    },
    .done = [](void* data, ext_image_copy_capture_session_v1*) { static_cast<State*>(data)->done = true; },
    .stopped = [](void* data, ext_image_copy_capture_session_v1*) { static_cast<State*>(data)->stopped = true; },
};

const ext_image_copy_capture_frame_v1_listener frame_listener = {
    .transform = [](void*, ext_image_copy_capture_frame_v1*, uint32_t) {},
    .damage = [](void*, ext_image_copy_capture_frame_v1*, int32_t, int32_t, int32_t, int32_t) {},
    .presentation_time = [](void*, ext_image_copy_capture_frame_v1*, uint32_t, uint32_t, uint32_t) {},
    .ready = [](void* data, ext_image_copy_capture_frame_v1*) {
        auto* s = static_cast<State*>(data);
        s->ended = s->ready = true;
    },
    .failed = [](void* data, ext_image_copy_capture_frame_v1*, uint32_t reason) {
        auto* s = static_cast<State*>(data);
        s->ended = true;
        s->reason = reason;
    },
};

// XRGB8888 rows (`stride` bytes apart) as a binary PPM.
bool write_ppm(const std::string& path, const uint8_t* pixels, uint32_t stride, uint32_t width, uint32_t height)
{
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        return false;
    std::fprintf(f, "P6\n%u %u\n255\n", width, height);
    std::vector<uint8_t> row(width * 3);
    for (uint32_t y = 0; y < height; ++y) {
        const auto* p = reinterpret_cast<const uint32_t*>(pixels + static_cast<size_t>(y) * stride);
        for (uint32_t x = 0; x < width; ++x) {
            row[x * 3] = static_cast<uint8_t>(p[x] >> 16);
            row[x * 3 + 1] = static_cast<uint8_t>(p[x] >> 8);
            row[x * 3 + 2] = static_cast<uint8_t>(p[x]);
        }
        std::fwrite(row.data(), 1, row.size(), f);
    }
    return std::fclose(f) == 0;
}

// Reads a dma-buf's pixels as the CPU sees them now: GBM through gbm_bo_map, udmabuf through its memfd, bracketed
// by DMA_BUF_IOCTL_SYNC so caches agree with what the GPU wrote.
bool write_dmabuf_ppm(const std::string& path, kiln::clients::DmabufAllocation& m, uint32_t width, uint32_t height)
{
    if (m.bo) {
        uint32_t stride = 0;
        void* handle = nullptr;
        void* map = gbm_bo_map(m.bo, 0, 0, width, height, GBM_BO_TRANSFER_READ, &stride, &handle);
        if (!map)
            return false;
        const bool ok = write_ppm(path, static_cast<const uint8_t*>(map), stride, width, height);
        gbm_bo_unmap(m.bo, handle);
        return ok;
    }
    void* map = mmap(nullptr, m.size, PROT_READ, MAP_SHARED, m.memfd >= 0 ? m.memfd : m.fd, 0);
    if (map == MAP_FAILED)
        return false;
    dma_buf_sync sync{DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ};
    ioctl(m.fd, DMA_BUF_IOCTL_SYNC, &sync);
    const bool ok = write_ppm(path, static_cast<const uint8_t*>(map) + m.offset, m.stride, width, height);
    sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
    ioctl(m.fd, DMA_BUF_IOCTL_SYNC, &sync);
    munmap(map, m.size);
    return ok;
}

}  // namespace

int main(int argc, char** argv)
{
    using namespace kiln::clients;
    bool use_dmabuf = false;
    DmabufSource source = DmabufSource::gbm;
    std::string device;
    std::string ppm;
    int frames = 1;
    uint32_t forced_width = 0;
    uint32_t forced_height = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        if (flag == "--help" || !value) {
            std::fputs(usage, flag == "--help" ? stdout : stderr);
            return flag == "--help" ? 0 : 2;
        }
        const std::string v = value;
        ++i;
        if (flag == "--buffer" && (v == "shm" || v == "dmabuf"))
            use_dmabuf = v == "dmabuf";
        else if (flag == "--source" && (v == "gbm" || v == "udmabuf"))
            source = v == "gbm" ? DmabufSource::gbm : DmabufSource::udmabuf;
        else if (flag == "--device")
            device = v;
        else if (flag == "--ppm")
            ppm = v;
        else if (flag == "--frames")
            frames = std::max(1, std::atoi(value));
        else if (flag == "--size" && std::sscanf(value, "%ux%u", &forced_width, &forced_height) == 2)
            continue;
        else {
            std::fputs(usage, stderr);
            return 2;
        }
    }

    std::string error;
    std::unique_ptr<DmabufAllocator> allocator;
    if (use_dmabuf) {
        allocator = DmabufAllocator::open(source, device, error);
        if (!allocator) {
            std::fprintf(stderr, "kiln-capture-client: skipped: %s\n", error.c_str());
            return 77;
        }
    }
    wl_display* display = wl_display_connect(nullptr);
    if (!display) {
        std::fprintf(stderr, "kiln-capture-client: cannot connect to the compositor\n");
        return 2;
    }
    State state;
    wl_registry* registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, &state);
    wl_display_roundtrip(display);
    if (!state.output || !state.sources || !state.manager || !state.shm || (use_dmabuf && !state.dmabuf)) {
        std::fprintf(stderr, "kiln-capture-client: the compositor lacks an output, ext-image-copy-capture, wl_shm or "
                             "linux-dmabuf v3\n");
        return 2;
    }
    ext_image_capture_source_v1* capture_source =
        ext_output_image_capture_source_manager_v1_create_source(state.sources, state.output);
    ext_image_copy_capture_session_v1* session =
        ext_image_copy_capture_manager_v1_create_session(state.manager, capture_source, 0);
    ext_image_copy_capture_session_v1_add_listener(session, &session_listener, &state);
    while (!state.done && !state.stopped)
        if (wl_display_dispatch(display) < 0)
            return 2;
    std::fflush(stdout);
    if (state.stopped)
        return 2;
    const uint32_t width = forced_width ? forced_width : state.width;
    const uint32_t height = forced_height ? forced_height : state.height;

    std::unique_ptr<ShmBuffer> shm;
    std::unique_ptr<DmabufAllocation> memory;
    wl_buffer* buffer = nullptr;
    if (use_dmabuf) {
        if (!state.has_device || state.xrgb_modifiers.empty())
            std::printf("no dma-buf constraints for XRGB8888 (trying anyway)\n");
        memory = allocator->allocate(width, height, DRM_FORMAT_XRGB8888, error);
        if (!memory) {
            std::fprintf(stderr, "kiln-capture-client: %s\n", error.c_str());
            return 2;
        }
        // Marked before the capture: a frame that is never drawn into shows this, not zeroes that might match.
        if (!allocator->fill(*memory, width, height, 0x0a0b0c, error))
            std::fprintf(stderr, "kiln-capture-client: cannot pre-fill the dma-buf: %s\n", error.c_str());
        zwp_linux_buffer_params_v1* params = zwp_linux_dmabuf_v1_create_params(state.dmabuf);
        zwp_linux_buffer_params_v1_add(params, memory->fd, 0, memory->offset, memory->stride,
                                       static_cast<uint32_t>(memory->modifier >> 32),
                                       static_cast<uint32_t>(memory->modifier & 0xffffffff));
        buffer = zwp_linux_buffer_params_v1_create_immed(params, static_cast<int32_t>(width),
                                                         static_cast<int32_t>(height), DRM_FORMAT_XRGB8888, 0);
        zwp_linux_buffer_params_v1_destroy(params);
        std::printf("dmabuf %s modifier %llx stride %u\n", allocator->name(),
                    static_cast<unsigned long long>(memory->modifier), memory->stride);
    } else {
        shm = ShmBuffer::create(state.shm, static_cast<int32_t>(width), static_cast<int32_t>(height), error);
        if (!shm) {
            std::fprintf(stderr, "kiln-capture-client: %s\n", error.c_str());
            return 2;
        }
        shm->fill(0, 0, static_cast<int32_t>(width), static_cast<int32_t>(height), 0x0a0b0c);
        buffer = shm->buffer();
    }

    int status = 0;
    for (int n = 0; n < frames; ++n) {
        state.ended = state.ready = false;
        ext_image_copy_capture_frame_v1* frame = ext_image_copy_capture_session_v1_create_frame(session);
        ext_image_copy_capture_frame_v1_add_listener(frame, &frame_listener, &state);
        ext_image_copy_capture_frame_v1_attach_buffer(frame, buffer);
        ext_image_copy_capture_frame_v1_damage_buffer(frame, 0, 0, static_cast<int32_t>(width),
                                                      static_cast<int32_t>(height));
        ext_image_copy_capture_frame_v1_capture(frame);
        while (!state.ended)
            if (wl_display_dispatch(display) < 0) {
                std::fprintf(stderr, "kiln-capture-client: connection lost\n");
                return 2;
            }
        if (state.ready)
            std::printf("frame %d ready\n", n);
        else
            std::printf("frame %d failed %u\n", n, state.reason);
        std::fflush(stdout);
        ext_image_copy_capture_frame_v1_destroy(frame);
        if (!state.ready) {
            status = 1;
            break;
        }
    }
    if (status == 0 && !ppm.empty()) {
        const bool ok = memory ? write_dmabuf_ppm(ppm, *memory, width, height)
                               : write_ppm(ppm, reinterpret_cast<const uint8_t*>(shm->pixels()),
                                           static_cast<uint32_t>(shm->stride_pixels()) * 4, width, height);
        if (!ok) {
            std::fprintf(stderr, "kiln-capture-client: cannot write %s\n", ppm.c_str());
            status = 2;
        }
    }
    ext_image_copy_capture_session_v1_destroy(session);
    ext_image_capture_source_v1_destroy(capture_source);
    if (memory)
        wl_buffer_destroy(buffer);
    shm.reset();
    wl_display_roundtrip(display);
    wl_display_disconnect(display);
    return status;
}
