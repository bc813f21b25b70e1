// kiln-bench-latency-probe: a small wl_shm window that redraws every frame and prints, per frame, how long after its
// commit the compositor presented it (wp_presentation feedback) and how long until it sent the frame callback (for
// compositors that offer wp_presentation but never answer it, like sway 1.7 headless).
//
// One line per frame on stdout, flushed, times in microseconds on the presentation clock (CLOCK_MONOTONIC when the
// compositor has no wp_presentation):
//   P <present_time_us> <commit_to_present_us> <msc> <refresh_ns> <flags>   presented (flags: wp_presentation kinds)
//   D <commit_time_us>                                             discarded (never shown)
//   F <done_time_us> <commit_to_frame_callback_us>                 the frame callback of the previous commit
//   C <clock_id>                                                   first line: the clock of every time above
#include "clients/client_window.hpp"
#include "clients/shm_buffer.hpp"
#include "presentation-time-client-protocol.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>

namespace {

constexpr const char* usage = R"(Usage: kiln-bench-latency-probe [--size WxH] [--frames N]
Prints commit-to-present (or commit-to-frame-callback) times of a window that changes every frame.
)";

clockid_t presentation_clock = CLOCK_MONOTONIC;

int64_t now_us()
{
    timespec ts{};
    clock_gettime(presentation_clock, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

// One frame's feedback: remembers its commit time until the compositor answers.
struct Pending {
    int64_t commit_us = 0;
};

const wp_presentation_listener presentation_listener = {
    [](void*, wp_presentation*, uint32_t clock) noexcept { presentation_clock = static_cast<clockid_t>(clock); },
};

const wp_presentation_feedback_listener feedback_listener = {
    [](void*, struct wp_presentation_feedback*, wl_output*) noexcept {},
    [](void* data, struct wp_presentation_feedback* feedback, uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec,
       uint32_t refresh, uint32_t seq_hi, uint32_t seq_lo, uint32_t flags) noexcept {
        std::unique_ptr<Pending> pending(static_cast<Pending*>(data));
        const int64_t present_us =
            static_cast<int64_t>((static_cast<uint64_t>(sec_hi) << 32) | sec_lo) * 1000000 + nsec / 1000;
        const uint64_t msc = (static_cast<uint64_t>(seq_hi) << 32) | seq_lo;
        std::printf("P %lld %lld %llu %u %u\n", static_cast<long long>(present_us),
                    static_cast<long long>(present_us - pending->commit_us), static_cast<unsigned long long>(msc),
                    refresh, flags);
        std::fflush(stdout);
        wp_presentation_feedback_destroy(feedback);
    },
    [](void* data, struct wp_presentation_feedback* feedback) noexcept {
        std::unique_ptr<Pending> pending(static_cast<Pending*>(data));
        std::printf("D %lld\n", static_cast<long long>(pending->commit_us));
        std::fflush(stdout);
        wp_presentation_feedback_destroy(feedback);
    },
};

const wl_registry_listener registry_listener = {
    [](void* data, wl_registry* registry, uint32_t name, const char* interface, uint32_t) noexcept {
        if (std::strcmp(interface, wp_presentation_interface.name) == 0)
            *static_cast<wp_presentation**>(data) =
                static_cast<wp_presentation*>(wl_registry_bind(registry, name, &wp_presentation_interface, 1));
    },
    [](void*, wl_registry*, uint32_t) noexcept {},
};

}  // namespace

int main(int argc, char** argv)
{
    using namespace kiln::clients;
    WindowOptions options;
    options.title = "kiln-bench-latency-probe";
    options.width = 64;
    options.height = 64;
    if (!parse_window_options(argc, argv, options, usage, nullptr))
        return 2;
    ClientWindow window(options);
    std::string error;
    if (!window.connect(error) || !window.shm()) {
        std::fprintf(stderr, "kiln-bench-latency-probe: %s\n", error.empty() ? "no wl_shm" : error.c_str());
        return 1;
    }
    wp_presentation* presentation = nullptr;
    wl_registry* registry = wl_display_get_registry(window.display());
    wl_registry_add_listener(registry, &registry_listener, &presentation);
    wl_display_roundtrip(window.display());
    if (presentation) {
        wp_presentation_add_listener(presentation, &presentation_listener, nullptr);
        wl_display_roundtrip(window.display());
    }
    std::printf("C %d\n", static_cast<int>(presentation_clock));
    std::fflush(stdout);

    std::array<std::unique_ptr<ShmBuffer>, 2> buffers;
    int64_t last_commit_us = -1;
    const int rc = window.run([&](uint64_t frame) {
        if (last_commit_us >= 0) {
            // run() calls us as soon as the previous frame's callback is done: that is the time to report.
            const int64_t done = now_us();
            std::printf("F %lld %lld\n", static_cast<long long>(done), static_cast<long long>(done - last_commit_us));
            std::fflush(stdout);
        }
        const int32_t w = window.width();
        const int32_t h = window.height();
        ShmBuffer* buffer = nullptr;
        for (auto& b : buffers) {
            if (!b || b->width() != w || b->height() != h) {
                b = ShmBuffer::create(window.shm(), w, h, error);
                if (!b) {
                    std::fprintf(stderr, "kiln-bench-latency-probe: %s\n", error.c_str());
                    return false;
                }
            }
            if (!buffer && !b->busy())
                buffer = b.get();
        }
        if (!buffer)
            buffer = buffers[frame % buffers.size()].get();
        // A new grey level every frame, so every commit is real damage.
        const uint32_t level = static_cast<uint32_t>(frame * 37 % 256);
        buffer->fill(0, 0, w, h, level << 16 | level << 8 | level);
        wl_surface_attach(window.surface(), buffer->buffer(), 0, 0);
        wl_surface_damage_buffer(window.surface(), 0, 0, w, h);
        if (presentation) {
            auto pending = std::make_unique<Pending>();
            struct wp_presentation_feedback* feedback = wp_presentation_feedback(presentation, window.surface());
            Pending* raw = pending.release();  // owned by the feedback's listener from here on
            wp_presentation_feedback_add_listener(feedback, &feedback_listener, raw);
            raw->commit_us = now_us();
        }
        buffer->set_busy();
        last_commit_us = now_us();
        wl_surface_commit(window.surface());
        return true;
    });
    if (presentation)
        wp_presentation_destroy(presentation);
    wl_registry_destroy(registry);
    return rc;
}
