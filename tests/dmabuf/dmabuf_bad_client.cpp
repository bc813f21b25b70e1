// kiln-test-dmabuf-client: sends linux-dmabuf descriptions, good and bad, and reports what kiln answered.
//   CASE            one named case; prints "error <code>", "created" or "failed"
//   random SEED N   N random descriptions, each on its own connection; prints a summary line per outcome
#include "linux-dmabuf-v1-client-protocol.h"

#include <wayland-client.h>

#include <drm_fourcc.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

struct Connection {
    wl_display* display = nullptr;
    zwp_linux_dmabuf_v1* dmabuf = nullptr;
    wl_registry* registry = nullptr;
    std::vector<wl_proxy*> proxies;  // everything else this client made, freed with it (the sanitizer job checks)
    bool created = false;
    bool failed = false;

    template <typename T>
    T* keep(T* proxy)
    {
        if (proxy)
            proxies.push_back(reinterpret_cast<wl_proxy*>(proxy));
        return proxy;
    }

    Connection()
    {
        display = wl_display_connect(nullptr);
        if (!display)
            return;
        registry = wl_display_get_registry(display);
        static const wl_registry_listener listener = {
            [](void* data, wl_registry* r, uint32_t name, const char* iface, uint32_t version) {
                if (std::strcmp(iface, zwp_linux_dmabuf_v1_interface.name) == 0)
                    static_cast<Connection*>(data)->dmabuf = static_cast<zwp_linux_dmabuf_v1*>(
                        wl_registry_bind(r, name, &zwp_linux_dmabuf_v1_interface, std::min(version, 3u)));
            },
            [](void*, wl_registry*, uint32_t) {},
        };
        wl_registry_add_listener(registry, &listener, this);
        wl_display_roundtrip(display);
    }
    ~Connection()
    {
        // Client-side only: wl_proxy_destroy sends nothing, so the outcome the test saw stays as it was.
        for (auto it = proxies.rbegin(); it != proxies.rend(); ++it)
            wl_proxy_destroy(*it);
        if (dmabuf)
            wl_proxy_destroy(reinterpret_cast<wl_proxy*>(dmabuf));
        if (registry)
            wl_registry_destroy(registry);
        if (display)
            wl_display_disconnect(display);
    }

    // Runs the description; returns "error N", "created", "failed" or "lost" (the connection died otherwise).
    std::string outcome()
    {
        for (int i = 0; i < 4; ++i)
            if (wl_display_roundtrip(display) < 0)
                break;
        const int error = wl_display_get_error(display);
        if (error == EPROTO) {
            const wl_interface* iface = nullptr;
            const uint32_t code = wl_display_get_protocol_error(display, &iface, nullptr);
            return "error " + std::to_string(code);
        }
        if (error != 0)
            return "lost";
        return failed ? "failed" : "created";
    }
};

int memfd_of(size_t size)
{
    const int fd = memfd_create("bad-client", MFD_CLOEXEC);
    if (fd >= 0 && ftruncate(fd, static_cast<off_t>(size)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int fd_of_kind(int kind, size_t size)
{
    int pair[2];
    switch (kind) {
    case 0: return memfd_of(size);
    case 1: return open("/dev/zero", O_RDWR | O_CLOEXEC);
    case 2:
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair);
        close(pair[1]);
        return pair[0];
    case 3:
        pipe2(pair, O_CLOEXEC);
        close(pair[1]);
        return pair[0];
    default: return memfd_of(size / 4);
    }
}

const zwp_linux_buffer_params_v1_listener params_listener = {
    [](void* data, zwp_linux_buffer_params_v1*, wl_buffer* buffer) {
        static_cast<Connection*>(data)->keep(buffer);
        static_cast<Connection*>(data)->created = true;
    },
    [](void* data, zwp_linux_buffer_params_v1*) { static_cast<Connection*>(data)->failed = true; },
};

void add(zwp_linux_buffer_params_v1* params, int fd, uint32_t plane, uint32_t offset, uint32_t stride)
{
    zwp_linux_buffer_params_v1_add(params, fd, plane, offset, stride, 0, 0);  // linear
    close(fd);  // the request carried a duplicate
}

using Case = std::function<void(Connection&, zwp_linux_buffer_params_v1*)>;

const std::map<std::string, Case> cases = {
    {"good", [](Connection& c, auto* p) { add(p, memfd_of(64 * 64 * 4), 0, 0, 256);
                                        c.keep(zwp_linux_buffer_params_v1_create_immed(p, 64, 64, DRM_FORMAT_XRGB8888, 0)); }},
    {"good_create", [](Connection& c, auto* p) {
         zwp_linux_buffer_params_v1_add_listener(p, &params_listener, &c);
         add(p, memfd_of(64 * 64 * 4), 0, 0, 256);
         zwp_linux_buffer_params_v1_create(p, 64, 64, DRM_FORMAT_XRGB8888, 0); }},
    {"plane_idx", [](Connection& c, auto* p) { add(p, memfd_of(4096), 4, 0, 256); }},
    {"plane_set", [](Connection& c, auto* p) { add(p, memfd_of(4096), 0, 0, 256); add(p, memfd_of(4096), 0, 0, 256); }},
    {"already_used", [](Connection& c, auto* p) {
         add(p, memfd_of(64 * 64 * 4), 0, 0, 256);
         c.keep(zwp_linux_buffer_params_v1_create_immed(p, 64, 64, DRM_FORMAT_XRGB8888, 0));
         c.keep(zwp_linux_buffer_params_v1_create_immed(p, 64, 64, DRM_FORMAT_XRGB8888, 0)); }},
    {"incomplete_none", [](Connection& c, auto* p) { c.keep(zwp_linux_buffer_params_v1_create_immed(p, 64, 64, DRM_FORMAT_XRGB8888, 0)); }},
    {"incomplete_gap", [](Connection& c, auto* p) { add(p, memfd_of(1 << 16), 1, 0, 256);
                                                  c.keep(zwp_linux_buffer_params_v1_create_immed(p, 64, 64, DRM_FORMAT_XRGB8888, 0)); }},
    {"incomplete_extra_plane", [](Connection& c, auto* p) { add(p, memfd_of(1 << 16), 0, 0, 256);
                                                          add(p, memfd_of(1 << 16), 1, 0, 256);
                                                          c.keep(zwp_linux_buffer_params_v1_create_immed(p, 64, 64, DRM_FORMAT_XRGB8888, 0)); }},
    {"invalid_format", [](Connection& c, auto* p) { add(p, memfd_of(1 << 16), 0, 0, 256);
                                                  c.keep(zwp_linux_buffer_params_v1_create_immed(p, 64, 64, 0x20202020, 0)); }},
    {"invalid_dimensions_zero", [](Connection& c, auto* p) { add(p, memfd_of(1 << 16), 0, 0, 256);
                                                           c.keep(zwp_linux_buffer_params_v1_create_immed(p, 0, 64, DRM_FORMAT_XRGB8888, 0)); }},
    {"invalid_dimensions_huge", [](Connection& c, auto* p) { add(p, memfd_of(1 << 16), 0, 0, 256);
                                                           c.keep(zwp_linux_buffer_params_v1_create_immed(p, 20000, 4, DRM_FORMAT_XRGB8888, 0)); }},
    {"out_of_bounds_small", [](Connection& c, auto* p) { add(p, memfd_of(64 * 63 * 4), 0, 0, 256);
                                                       c.keep(zwp_linux_buffer_params_v1_create_immed(p, 64, 64, DRM_FORMAT_XRGB8888, 0)); }},
    {"out_of_bounds_overflow", [](Connection& c, auto* p) { add(p, memfd_of(1 << 16), 0, 0xfffffff0u, 0xfffffff0u);
                                                          c.keep(zwp_linux_buffer_params_v1_create_immed(p, 64, 16384, DRM_FORMAT_XRGB8888, 0)); }},
    {"out_of_bounds_stride", [](Connection& c, auto* p) { add(p, memfd_of(1 << 20), 0, 0, 16);
                                                        c.keep(zwp_linux_buffer_params_v1_create_immed(p, 64, 64, DRM_FORMAT_XRGB8888, 0)); }},
    {"dev_zero", [](Connection& c, auto* p) { add(p, fd_of_kind(1, 0), 0, 0, 256);
                                            c.keep(zwp_linux_buffer_params_v1_create_immed(p, 64, 64, DRM_FORMAT_XRGB8888, 0)); }},
    {"socket", [](Connection& c, auto* p) { add(p, fd_of_kind(2, 0), 0, 0, 256);
                                          c.keep(zwp_linux_buffer_params_v1_create_immed(p, 64, 64, DRM_FORMAT_XRGB8888, 0)); }},
    {"pipe", [](Connection& c, auto* p) { add(p, fd_of_kind(3, 0), 0, 0, 256);
                                        c.keep(zwp_linux_buffer_params_v1_create_immed(p, 64, 64, DRM_FORMAT_XRGB8888, 0)); }},
    // The asynchronous create: memory that cannot hold the buffer is 'failed' (the client may fall back), the
    // other argument errors stay fatal.
    {"create_bad_size", [](Connection& c, auto* p) {
         zwp_linux_buffer_params_v1_add_listener(p, &params_listener, &c);
         add(p, memfd_of(100), 0, 0, 256);
         zwp_linux_buffer_params_v1_create(p, 64, 64, DRM_FORMAT_XRGB8888, 0); }},
    {"create_bad_stride", [](Connection& c, auto* p) {
         zwp_linux_buffer_params_v1_add_listener(p, &params_listener, &c);
         add(p, memfd_of(1 << 20), 0, 0, 16);
         zwp_linux_buffer_params_v1_create(p, 64, 64, DRM_FORMAT_XRGB8888, 0); }},
    {"create_pipe", [](Connection& c, auto* p) {
         zwp_linux_buffer_params_v1_add_listener(p, &params_listener, &c);
         add(p, fd_of_kind(3, 0), 0, 0, 256);
         zwp_linux_buffer_params_v1_create(p, 64, 64, DRM_FORMAT_XRGB8888, 0); }},
    {"create_dev_zero", [](Connection& c, auto* p) {
         zwp_linux_buffer_params_v1_add_listener(p, &params_listener, &c);
         add(p, fd_of_kind(1, 0), 0, 0, 256);
         zwp_linux_buffer_params_v1_create(p, 64, 64, DRM_FORMAT_XRGB8888, 0); }},
    {"create_invalid_format", [](Connection& c, auto* p) {
         zwp_linux_buffer_params_v1_add_listener(p, &params_listener, &c);
         add(p, memfd_of(1 << 16), 0, 0, 256);
         zwp_linux_buffer_params_v1_create(p, 64, 64, 0x20202020, 0); }},
    {"create_incomplete", [](Connection& c, auto* p) {
         zwp_linux_buffer_params_v1_add_listener(p, &params_listener, &c);
         zwp_linux_buffer_params_v1_create(p, 64, 64, DRM_FORMAT_XRGB8888, 0); }},
    // After 'failed' the params is used: another create on it is already_used, and a good buffer still follows.
    {"create_failed_then_reused", [](Connection& c, auto* p) {
         zwp_linux_buffer_params_v1_add_listener(p, &params_listener, &c);
         add(p, memfd_of(100), 0, 0, 256);
         zwp_linux_buffer_params_v1_create(p, 64, 64, DRM_FORMAT_XRGB8888, 0);
         wl_display_roundtrip(c.display);
         std::printf("%s\n", c.failed ? "failed first" : "not failed first");
         zwp_linux_buffer_params_v1_create(p, 64, 64, DRM_FORMAT_XRGB8888, 0); }},
};

void random_description(std::mt19937& rng, Connection& c, zwp_linux_buffer_params_v1* p)
{
    auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
    const uint32_t formats[] = {DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_NV12, pick(0xffffffffu)};
    const int32_t sizes[] = {1, 16, 64, 0, -5, 16385, 100000, static_cast<int32_t>(pick(5000))};
    const int32_t width = sizes[pick(8)];
    const int32_t height = sizes[pick(8)];
    const uint32_t planes = pick(4);
    for (uint32_t i = 0; i < planes; ++i) {
        const uint32_t index = pick(10) == 0 ? pick(6) : i;
        const uint32_t stride_choices[] = {0, 4, 64 * 4, 0xffffffffu, pick(100000)};
        const uint32_t offset_choices[] = {0, 0, 4096, 0xfffffff0u, pick(1u << 20)};
        add(p, fd_of_kind(static_cast<int>(pick(5)), pick(1u << 21)), index, offset_choices[pick(5)],
            stride_choices[pick(5)]);
    }
    if (pick(4) == 0) {
        zwp_linux_buffer_params_v1_add_listener(p, &params_listener, &c);
        zwp_linux_buffer_params_v1_create(p, width, height, formats[pick(4)], pick(8) == 0 ? 1 : 0);
    } else {
        c.keep(zwp_linux_buffer_params_v1_create_immed(p, width, height, formats[pick(4)], pick(8) == 0 ? 1 : 0));
    }
}

}  // namespace

int main(int argc, char** argv)
{
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "random" && argc == 4) {
        std::mt19937 rng(static_cast<uint32_t>(std::atoi(argv[2])));
        const int count = std::atoi(argv[3]);
        std::map<std::string, int> outcomes;
        for (int i = 0; i < count; ++i) {
            Connection c;
            if (!c.display || !c.dmabuf) {
                std::printf("iteration %d: cannot connect or no linux-dmabuf (kiln gone?)\n", i);
                return 1;
            }
            auto* params = c.keep(zwp_linux_dmabuf_v1_create_params(c.dmabuf));
            random_description(rng, c, params);
            const std::string result = c.outcome();
            if (result == "lost") {
                std::printf("iteration %d: connection lost without a protocol error\n", i);
                return 1;
            }
            ++outcomes[result];
        }
        for (const auto& [outcome, n] : outcomes)
            std::printf("outcome %s: %d\n", outcome.c_str(), n);
        return 0;
    }
    auto it = cases.find(mode);
    if (it == cases.end()) {
        std::fprintf(stderr, "usage: %s CASE | random SEED COUNT\ncases:", argv[0]);
        for (const auto& [name, fn] : cases)
            std::fprintf(stderr, " %s", name.c_str());
        std::fprintf(stderr, "\n");
        return 2;
    }
    Connection c;
    if (!c.display || !c.dmabuf) {
        std::printf("no linux-dmabuf\n");
        return 77;
    }
    auto* params = c.keep(zwp_linux_dmabuf_v1_create_params(c.dmabuf));
    it->second(c, params);
    std::printf("%s\n", c.outcome().c_str());
    return 0;
}
