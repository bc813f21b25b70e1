// kiln-demo-dmabuf: a window whose buffers are real dma-bufs (GBM, udmabuf, dma-heap; memfd on hosts without any),
// sent through linux-dmabuf (create_immed) or wl_drm (create_prime_buffer) and cycled frame after frame.
#include "clients/client_window.hpp"
#include "clients/dmabuf_allocator.hpp"

#include <drm_fourcc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr const char* usage = R"(Usage: kiln-demo-dmabuf [--source gbm|udmabuf|heap|memfd] [--device PATH]
                        [--protocol linux-dmabuf|wl_drm] [--format xrgb8888|xbgr8888|nv12] [--buffers N]
                        [--modifier linear|implicit] [--size WxH] [--color RRGGBB]
                        [--frames N [--stay]] [--fullscreen] [--rewrite RRGGBB]
A window drawn into dma-bufs the client allocates itself; kiln samples them in place. Exits 77 when the chosen
source does not exist on this machine. --rewrite: every odd frame refills the buffer in place with this colour
(every even one with --color) before committing it again: with --buffers 1, proof that kiln shows what is in the
memory now, not a copy. --modifier implicit: linux-dmabuf buffers say no modifier (DRM_FORMAT_MOD_INVALID), as a
driver-allocated buffer of unknown layout would.
)";

struct Slot {
    std::unique_ptr<kiln::clients::DmabufAllocation> memory;
    wl_buffer* buffer = nullptr;
    bool busy = false;
};

const wl_buffer_listener release_listener = {
    [](void* data, wl_buffer*) { static_cast<Slot*>(data)->busy = false; },
};

}  // namespace

int main(int argc, char** argv)
{
    using namespace kiln::clients;
    WindowOptions options;
    options.title = "kiln-demo-dmabuf";
    DmabufSource source = DmabufSource::gbm;
    std::string device;
    bool use_wl_drm = false;
    int buffer_count = 3;
    std::optional<uint32_t> rewrite;
    uint32_t format = DRM_FORMAT_XRGB8888;
    bool implicit_modifier = false;
    const bool ok = parse_window_options(argc, argv, options, usage,
                                         [&](const std::string& flag, const char* value, bool& used) {
                                             used = true;
                                             if (!value)
                                                 return false;
                                             const std::string v = value;
                                             if (flag == "--source") {
                                                 if (v == "gbm")
                                                     source = DmabufSource::gbm;
                                                 else if (v == "udmabuf")
                                                     source = DmabufSource::udmabuf;
                                                 else if (v == "heap")
                                                     source = DmabufSource::heap;
                                                 else if (v == "memfd")
                                                     source = DmabufSource::memfd;
                                                 else
                                                     return false;
                                                 return true;
                                             }
                                             if (flag == "--device") {
                                                 device = v;
                                                 return true;
                                             }
                                             if (flag == "--protocol") {
                                                 if (v != "linux-dmabuf" && v != "wl_drm")
                                                     return false;
                                                 use_wl_drm = v == "wl_drm";
                                                 return true;
                                             }
                                             if (flag == "--format") {
                                                 if (v != "xrgb8888" && v != "xbgr8888" && v != "nv12")
                                                     return false;
                                                 format = v == "nv12" ? DRM_FORMAT_NV12
                                                                      : (v == "xbgr8888" ? DRM_FORMAT_XBGR8888
                                                                                         : DRM_FORMAT_XRGB8888);
                                                 return true;
                                             }
                                             if (flag == "--modifier") {
                                                 if (v != "linear" && v != "implicit")
                                                     return false;
                                                 implicit_modifier = v == "implicit";
                                                 return true;
                                             }
                                             if (flag == "--buffers") {
                                                 buffer_count = std::atoi(value);
                                                 return buffer_count >= 1 && buffer_count <= 8;
                                             }
                                             if (flag == "--rewrite") {
                                                 char* end = nullptr;
                                                 rewrite = static_cast<uint32_t>(std::strtoul(value, &end, 16));
                                                 return v.size() == 6 && !*end;
                                             }
                                             return false;
                                         });
    if (!ok)
        return 2;

    std::string error;
    auto allocator = DmabufAllocator::open(source, device, error);
    if (!allocator) {
        std::printf("kiln-demo-dmabuf: no %s buffers on this machine (%s)\n",
                    source == DmabufSource::gbm ? "GBM" : (source == DmabufSource::udmabuf ? "udmabuf" : "dma-heap"),
                    error.c_str());
        return 77;
    }
    ClientWindow window(options);
    if (!window.connect(error)) {
        std::fprintf(stderr, "kiln-demo-dmabuf: %s\n", error.c_str());
        return 1;
    }
    if (use_wl_drm ? !window.drm() : !window.dmabuf()) {
        std::fprintf(stderr, "kiln-demo-dmabuf: the compositor offers no %s\n", use_wl_drm ? "wl_drm" : "zwp_linux_dmabuf_v1");
        return 1;
    }

    std::vector<Slot> slots(static_cast<size_t>(buffer_count));
    int32_t built_w = 0;
    int32_t built_h = 0;
    auto build = [&]() -> bool {
        const auto w = static_cast<uint32_t>(window.width());
        const auto h = static_cast<uint32_t>(window.height());
        for (auto& slot : slots) {
            if (slot.buffer)
                wl_buffer_destroy(slot.buffer);
            slot = Slot{};
            slot.memory = allocator->allocate(w, h, format, error);
            if (!slot.memory || !allocator->fill(*slot.memory, w, h, options.color, error))
                return false;
            const auto& m = *slot.memory;
            const bool nv12 = format == DRM_FORMAT_NV12;
            if (use_wl_drm) {
                slot.buffer = wl_drm_create_prime_buffer(
                    window.drm(), m.fd, static_cast<int32_t>(w), static_cast<int32_t>(h), format,
                    static_cast<int32_t>(m.offset), static_cast<int32_t>(m.stride),
                    nv12 ? static_cast<int32_t>(m.chroma_offset) : 0, nv12 ? static_cast<int32_t>(m.stride) : 0, 0, 0);
            } else {
                const uint64_t modifier = implicit_modifier ? DRM_FORMAT_MOD_INVALID : m.modifier;
                zwp_linux_buffer_params_v1* params = zwp_linux_dmabuf_v1_create_params(window.dmabuf());
                zwp_linux_buffer_params_v1_add(params, m.fd, 0, m.offset, m.stride,
                                               static_cast<uint32_t>(modifier >> 32),
                                               static_cast<uint32_t>(modifier & 0xffffffffu));
                if (nv12)
                    zwp_linux_buffer_params_v1_add(params, m.fd, 1, m.chroma_offset, m.stride,
                                                   static_cast<uint32_t>(modifier >> 32),
                                                   static_cast<uint32_t>(modifier & 0xffffffffu));
                slot.buffer = zwp_linux_buffer_params_v1_create_immed(params, static_cast<int32_t>(w),
                                                                      static_cast<int32_t>(h), format, 0);
                zwp_linux_buffer_params_v1_destroy(params);
            }
            wl_buffer_add_listener(slot.buffer, &release_listener, &slot);
        }
        built_w = window.width();
        built_h = window.height();
        return true;
    };

    std::printf("kiln-demo-dmabuf: %d %s buffers via %s\n", buffer_count, allocator->name(),
                use_wl_drm ? "wl_drm" : "linux-dmabuf");
    std::fflush(stdout);
    const int status = window.run([&](uint64_t frame) {
        if (window.width() != built_w || window.height() != built_h) {
            if (!build()) {
                std::fprintf(stderr, "kiln-demo-dmabuf: %s\n", error.c_str());
                return false;
            }
        }
        Slot* slot = &slots[frame % slots.size()];
        for (auto& candidate : slots)
            if (!candidate.busy) {
                slot = &candidate;
                break;
            }
        if (rewrite && !allocator->fill(*slot->memory, static_cast<uint32_t>(window.width()),
                                        static_cast<uint32_t>(window.height()),
                                        frame % 2 ? *rewrite : options.color, error)) {
            std::fprintf(stderr, "kiln-demo-dmabuf: %s\n", error.c_str());
            return false;
        }
        slot->busy = true;
        wl_surface_attach(window.surface(), slot->buffer, 0, 0);
        wl_surface_damage_buffer(window.surface(), 0, 0, window.width(), window.height());
        wl_surface_commit(window.surface());
        return true;
    });
    for (auto& slot : slots)
        if (slot.buffer)
            wl_buffer_destroy(slot.buffer);
    return status;
}
