// kiln-syncobj-client: a window whose udmabuf buffers are synchronised explicitly (wp_linux_drm_syncobj_manager_v1):
// one timeline per buffer, acquire points signalled from the CPU after a delay (or never), release points waited for
// before a buffer is reused, every event logged with its CLOCK_MONOTONIC time; and one mode per protocol error.
#include "clients/client_window.hpp"
#include "clients/dmabuf_allocator.hpp"
#include "clients/syncobj_errors.hpp"
#include "clients/syncobj_timeline.hpp"

#include "linux-drm-syncobj-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"

#include <drm_fourcc.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr const char* usage = R"(Usage: kiln-syncobj-client [--device PATH] [--size WxH] [--frames N [--stay]] [--fullscreen]
                          [--colors RRGGBB,RRGGBB,...] [--buffers N] [--first-delay-ms MS] [--acquire-delay-ms MS]
                          [--never-signal-from FRAME] [--destroy-timeline-at FRAME]
                          [--error surface-exists|invalid-timeline|no-surface|unsupported-buffer|no-buffer|
                                   no-release-point|no-acquire-point|conflicting-points]
Explicit sync over wp_linux_drm_syncobj_manager_v1 with udmabuf buffers. Each buffer has its own DRM timeline
syncobj (on --device, else the first card with timeline syncobjs); its k-th use has acquire point 2k+1 and release
point 2k+2. Frame i is filled with colour i (cycling), committed, and its acquire point signalled from the CPU after
--acquire-delay-ms (frame 0: --first-delay-ms), or never from frame --never-signal-from on; the next frame waits for
the frame callback and for its buffer's release point. Log lines: "t=<ms> <event> key=value...", t in
CLOCK_MONOTONIC milliseconds. --error: provoke that protocol error and print "protocol error: interface=I code=C".
Exits 3 when the compositor offers no wp_linux_drm_syncobj_manager_v1, 77 when there is no udmabuf or no device with
timeline syncobjs.
)";

double now_ms()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

void log_event(const char* format, ...)
{
    std::printf("t=%.3f ", now_ms());
    va_list args;
    va_start(args, format);
    std::vprintf(format, args);
    va_end(args);
    std::putchar('\n');
    std::fflush(stdout);
}

struct Options {
    std::string device;
    std::vector<uint32_t> colors;
    int buffers = 2;
    int first_delay_ms = 0;
    int delay_ms = 0;
    int64_t never_from = -1;
    int64_t destroy_timeline_at = -1;
    std::string error_mode;
};

// The globals this client needs beyond ClientWindow's, from a registry of its own.
struct Globals {
    wl_compositor* compositor = nullptr;
    wp_linux_drm_syncobj_manager_v1* syncobj = nullptr;
    wp_presentation* presentation = nullptr;
    clockid_t presentation_clock = CLOCK_MONOTONIC;

    ~Globals()
    {
        if (presentation)
            wp_presentation_destroy(presentation);
        if (syncobj)
            wp_linux_drm_syncobj_manager_v1_destroy(syncobj);
        if (compositor)
            wl_compositor_destroy(compositor);
    }
};

const wl_registry_listener registry_listener = {
    [](void* data, wl_registry* registry, uint32_t name, const char* interface, uint32_t) {
        auto* g = static_cast<Globals*>(data);
        const std::string_view iface = interface;
        if (iface == wl_compositor_interface.name)
            g->compositor = static_cast<wl_compositor*>(wl_registry_bind(registry, name, &wl_compositor_interface, 4));
        else if (iface == wp_linux_drm_syncobj_manager_v1_interface.name)
            g->syncobj = static_cast<wp_linux_drm_syncobj_manager_v1*>(
                wl_registry_bind(registry, name, &wp_linux_drm_syncobj_manager_v1_interface, 1));
        else if (iface == wp_presentation_interface.name)
            g->presentation =
                static_cast<wp_presentation*>(wl_registry_bind(registry, name, &wp_presentation_interface, 1));
    },
    [](void*, wl_registry*, uint32_t) {},
};

const wp_presentation_listener presentation_listener = {
    [](void* data, wp_presentation*, uint32_t clock) {
        static_cast<Globals*>(data)->presentation_clock = static_cast<clockid_t>(clock);
    },
};

// One buffer: its memory, its wl_buffer, its timeline (kernel object and the compositor's import of it).
struct Slot {
    std::unique_ptr<kiln::clients::DmabufAllocation> memory;
    wl_buffer* buffer = nullptr;
    int32_t width = 0;
    int32_t height = 0;
    std::unique_ptr<kiln::clients::SyncobjTimeline> timeline;
    wp_linux_drm_syncobj_timeline_v1* imported = nullptr;
    uint64_t uses = 0;
    int release_fd = -1;       // eventfd for the pending release point, -1 when the buffer is free
    int64_t release_frame = -1;
};

// A committed frame whose acquire point is not signalled yet.
struct PendingAcquire {
    int64_t frame;
    Slot* slot;
    uint64_t point;
    double due_ms;  // < 0: never
};

struct FrameEvents {
    int64_t frame;
    double commit_ms;
};

class Client {
public:
    Client(kiln::clients::ClientWindow& window, Globals& globals, kiln::clients::DmabufAllocator& allocator, int drm_fd,
           const Options& options)
        : window_(window), globals_(globals), allocator_(allocator), drm_fd_(drm_fd), options_(options)
    {
    }

    ~Client()
    {
        for (auto* fb : feedbacks_)
            wp_presentation_feedback_destroy(fb);
        if (frame_callback_)
            wl_callback_destroy(frame_callback_);
        if (surface_sync_)
            wp_linux_drm_syncobj_surface_v1_destroy(surface_sync_);
        for (auto& slot : slots_) {
            if (slot.release_fd >= 0)
                close(slot.release_fd);
            if (slot.imported)
                wp_linux_drm_syncobj_timeline_v1_destroy(slot.imported);
            if (slot.buffer)
                wl_buffer_destroy(slot.buffer);
        }
    }

    bool setup(std::string& error)
    {
        slots_.resize(static_cast<size_t>(options_.buffers));
        for (auto& slot : slots_) {
            if (!make_buffer(slot, error))
                return false;
            slot.timeline = kiln::clients::SyncobjTimeline::create(drm_fd_, error);
            if (!slot.timeline || !import(slot, error))
                return false;
        }
        surface_sync_ = wp_linux_drm_syncobj_manager_v1_get_surface(globals_.syncobj, window_.surface());
        return true;
    }

    int run()
    {
        const int64_t frames = window_.options().frames;
        bool announced = false;
        while (true) {
            if (int status = check_connection(); status >= 0)
                return status;
            if (frame_ready_ && (frames < 0 || next_frame_ < frames)) {
                if (Slot* slot = free_slot(next_frame_)) {
                    std::string error;
                    if (!commit_frame(*slot, error)) {
                        std::fprintf(stderr, "kiln-syncobj-client: %s\n", error.c_str());
                        return 1;
                    }
                }
            }
            if (frames >= 0 && next_frame_ >= frames && frame_ready_ && !announced) {
                log_event("done frames=%" PRId64, frames);
                announced = true;
                if (!window_.options().stay)
                    return wl_display_roundtrip(window_.display()) < 0 ? 1 : 0;
            }
            if (!wait_and_dispatch()) {
                const int status = check_connection();
                return status >= 0 ? status : 1;
            }
        }
    }

private:
    // (Re)makes the slot's memory and wl_buffer at the window's size; the slot's timeline stays.
    bool make_buffer(Slot& slot, std::string& error)
    {
        if (slot.buffer)
            wl_buffer_destroy(slot.buffer);
        slot.buffer = nullptr;
        slot.width = window_.width();
        slot.height = window_.height();
        const auto w = static_cast<uint32_t>(slot.width);
        const auto h = static_cast<uint32_t>(slot.height);
        slot.memory = allocator_.allocate(w, h, DRM_FORMAT_XRGB8888, error);
        if (!slot.memory)
            return false;
        const auto& m = *slot.memory;
        zwp_linux_buffer_params_v1* params = zwp_linux_dmabuf_v1_create_params(window_.dmabuf());
        zwp_linux_buffer_params_v1_add(params, m.fd, 0, m.offset, m.stride, static_cast<uint32_t>(m.modifier >> 32),
                                       static_cast<uint32_t>(m.modifier & 0xffffffffu));
        slot.buffer = zwp_linux_buffer_params_v1_create_immed(params, static_cast<int32_t>(w), static_cast<int32_t>(h),
                                                              DRM_FORMAT_XRGB8888, 0);
        zwp_linux_buffer_params_v1_destroy(params);
        // wl_buffer.release is not sent for explicit-sync buffers (the release point replaces it): no listener.
        return true;
    }

    bool import(Slot& slot, std::string& error)
    {
        const int fd = slot.timeline->export_fd();
        if (fd < 0) {
            error = std::string("drmSyncobjHandleToFD: ") + std::strerror(errno);
            return false;
        }
        slot.imported = wp_linux_drm_syncobj_manager_v1_import_timeline(globals_.syncobj, fd);
        close(fd);  // the request carries a duplicate
        return true;
    }

    Slot* free_slot(int64_t frame)
    {
        Slot& slot = slots_[static_cast<size_t>(frame) % slots_.size()];
        return slot.release_fd < 0 ? &slot : nullptr;
    }

    bool commit_frame(Slot& slot, std::string& error)
    {
        const int64_t frame = next_frame_++;
        const size_t index = static_cast<size_t>(&slot - slots_.data());
        const uint32_t color = options_.colors[static_cast<size_t>(frame) % options_.colors.size()];
        // The "rendering": written before the acquire point signals, so showing it early would be visible.
        // A configure changed the size (a fullscreen window's comes after the first commit): the free slot follows.
        if ((slot.width != window_.width() || slot.height != window_.height()) && !make_buffer(slot, error))
            return false;
        if (!allocator_.fill(*slot.memory, static_cast<uint32_t>(slot.width), static_cast<uint32_t>(slot.height),
                             color, error))
            return false;
        if (!slot.imported && !import(slot, error))
            return false;
        const uint64_t acquire = 2 * slot.uses + 1;
        const uint64_t release = acquire + 1;
        ++slot.uses;
        wl_surface* surface = window_.surface();
        wl_surface_attach(surface, slot.buffer, 0, 0);
        wl_surface_damage_buffer(surface, 0, 0, slot.width, slot.height);
        wp_linux_drm_syncobj_surface_v1_set_acquire_point(surface_sync_, slot.imported, 0,
                                                          static_cast<uint32_t>(acquire));
        wp_linux_drm_syncobj_surface_v1_set_release_point(surface_sync_, slot.imported, 0,
                                                          static_cast<uint32_t>(release));
        frame_callback_ = wl_surface_frame(surface);
        wl_callback_add_listener(frame_callback_, &frame_listener, this);
        if (globals_.presentation) {
            struct wp_presentation_feedback* feedback = wp_presentation_feedback(globals_.presentation, surface);
            feedbacks_.push_back(feedback);
            wp_presentation_feedback_add_listener(feedback, &feedback_listener, this);
            feedback_frames_[feedback] = frame;
        }
        // Watch the release point before committing: it may signal as soon as the compositor lets go.
        slot.release_fd = slot.timeline->eventfd_for(release);
        if (slot.release_fd < 0) {
            error = std::string("drmSyncobjEventfd: ") + std::strerror(errno);
            return false;
        }
        slot.release_frame = frame;
        wl_surface_commit(surface);
        frame_ready_ = false;
        callback_frame_ = frame;
        log_event("commit frame=%" PRId64 " buffer=%zu color=%06x acquire=%" PRIu64 " release=%" PRIu64, frame, index,
                  color, acquire, release);
        const bool never = options_.never_from >= 0 && frame >= options_.never_from;
        const int delay = frame == 0 ? options_.first_delay_ms : options_.delay_ms;
        pending_.push_back({frame, &slot, acquire, never ? -1.0 : now_ms() + delay});
        if (never)
            log_event("acquire_never frame=%" PRId64, frame);
        if (frame == options_.destroy_timeline_at) {
            // After the commit that uses it: the points already set must still count.
            wp_linux_drm_syncobj_timeline_v1_destroy(slot.imported);
            slot.imported = nullptr;
            log_event("timeline_destroyed frame=%" PRId64 " buffer=%zu", frame, index);
        }
        signal_due();
        return true;
    }

    void signal_due()
    {
        const double now = now_ms();
        for (auto it = pending_.begin(); it != pending_.end();) {
            if (it->due_ms >= 0 && it->due_ms <= now) {
                if (!it->slot->timeline->signal(it->point))
                    std::fprintf(stderr, "kiln-syncobj-client: drmSyncobjTimelineSignal: %s\n", std::strerror(errno));
                log_event("acquire_signalled frame=%" PRId64 " point=%" PRIu64, it->frame, it->point);
                it = pending_.erase(it);
            } else {
                ++it;
            }
        }
    }

    int poll_timeout() const
    {
        int timeout = -1;
        const double now = now_ms();
        for (const auto& p : pending_)
            if (p.due_ms >= 0) {
                const int ms = std::max(0, static_cast<int>(p.due_ms - now + 0.999));
                timeout = timeout < 0 ? ms : std::min(timeout, ms);
            }
        return timeout;
    }

    // Polls the connection, the timers and the release eventfds; dispatches what arrived. False on a dead connection.
    bool wait_and_dispatch()
    {
        wl_display* display = window_.display();
        while (wl_display_prepare_read(display) != 0)
            if (wl_display_dispatch_pending(display) < 0)
                return false;
        if (wl_display_flush(display) < 0 && errno != EAGAIN) {
            wl_display_cancel_read(display);
            return false;
        }
        std::vector<pollfd> fds{{wl_display_get_fd(display), POLLIN, 0}};
        std::vector<Slot*> watched;
        for (auto& slot : slots_)
            if (slot.release_fd >= 0) {
                fds.push_back({slot.release_fd, POLLIN, 0});
                watched.push_back(&slot);
            }
        if (poll(fds.data(), fds.size(), poll_timeout()) < 0 && errno != EINTR) {
            wl_display_cancel_read(display);
            return false;
        }
        if (fds[0].revents & POLLIN) {
            if (wl_display_read_events(display) < 0)
                return false;
        } else {
            wl_display_cancel_read(display);
        }
        for (size_t i = 1; i < fds.size(); ++i)
            if (fds[i].revents & POLLIN) {
                Slot* slot = watched[i - 1];
                log_event("release frame=%" PRId64 " buffer=%zu point=%" PRIu64, slot->release_frame,
                          static_cast<size_t>(slot - slots_.data()), 2 * slot->uses);
                close(slot->release_fd);
                slot->release_fd = -1;
            }
        signal_due();
        return wl_display_dispatch_pending(display) >= 0;
    }

    // -1 while the connection is fine; else the exit status after printing the protocol error.
    int check_connection() { return kiln::clients::report_connection_error(window_.display()) ? 1 : -1; }

    static const wl_callback_listener frame_listener;
    static const wp_presentation_feedback_listener feedback_listener;

    void feedback_done(struct wp_presentation_feedback* feedback)
    {
        std::erase(feedbacks_, feedback);
        feedback_frames_.erase(feedback);
        wp_presentation_feedback_destroy(feedback);
    }

    kiln::clients::ClientWindow& window_;
    Globals& globals_;
    kiln::clients::DmabufAllocator& allocator_;
    int drm_fd_;
    const Options& options_;
    std::vector<Slot> slots_;
    wp_linux_drm_syncobj_surface_v1* surface_sync_ = nullptr;
    wl_callback* frame_callback_ = nullptr;
    int64_t callback_frame_ = -1;
    std::vector<struct wp_presentation_feedback*> feedbacks_;
    std::map<struct wp_presentation_feedback*, int64_t> feedback_frames_;
    std::vector<PendingAcquire> pending_;
    int64_t next_frame_ = 0;
    bool frame_ready_ = true;
};

const wl_callback_listener Client::frame_listener = {
    [](void* data, wl_callback* callback, uint32_t) {
        auto* self = static_cast<Client*>(data);
        wl_callback_destroy(callback);
        self->frame_callback_ = nullptr;
        self->frame_ready_ = true;
        log_event("frame_done frame=%" PRId64, self->callback_frame_);
    },
};

const wp_presentation_feedback_listener Client::feedback_listener = {
    [](void*, struct wp_presentation_feedback*, wl_output*) {},
    [](void* data, struct wp_presentation_feedback* feedback, uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec,
       uint32_t refresh, uint32_t, uint32_t, uint32_t flags) {
        auto* self = static_cast<Client*>(data);
        const double presented =
            static_cast<double>((static_cast<uint64_t>(sec_hi) << 32) | sec_lo) * 1e3 + static_cast<double>(nsec) / 1e6;
        log_event("presented frame=%" PRId64 " at=%.3f clock=%d refresh_ns=%u zero_copy=%d",
                  self->feedback_frames_[feedback], presented, static_cast<int>(self->globals_.presentation_clock),
                  refresh, (flags & WP_PRESENTATION_FEEDBACK_KIND_ZERO_COPY) ? 1 : 0);
        self->feedback_done(feedback);
    },
    [](void* data, struct wp_presentation_feedback* feedback) {
        auto* self = static_cast<Client*>(data);
        log_event("discarded frame=%" PRId64, self->feedback_frames_[feedback]);
        self->feedback_done(feedback);
    },
};

bool parse_colors(const std::string& list, std::vector<uint32_t>& out)
{
    std::stringstream stream(list);
    std::string item;
    while (std::getline(stream, item, ',')) {
        char* end = nullptr;
        const auto value = static_cast<uint32_t>(std::strtoul(item.c_str(), &end, 16));
        if (item.size() != 6 || *end)
            return false;
        out.push_back(value);
    }
    return !out.empty();
}

}  // namespace

int main(int argc, char** argv)
{
    using namespace kiln::clients;
    WindowOptions window_options;
    window_options.title = "kiln-syncobj-client";
    Options options;
    const bool ok = parse_window_options(
        argc, argv, window_options, usage, [&](const std::string& flag, const char* value, bool& used) {
            used = true;
            if (!value)
                return false;
            const std::string v = value;
            auto number = [&](auto& out) {
                char* end = nullptr;
                const long long n = std::strtoll(value, &end, 10);
                out = static_cast<std::remove_reference_t<decltype(out)>>(n);
                return !*end && n >= 0;
            };
            if (flag == "--device")
                return options.device = v, true;
            if (flag == "--colors")
                return parse_colors(v, options.colors);
            if (flag == "--buffers")
                return number(options.buffers) && options.buffers >= 1 && options.buffers <= 8;
            if (flag == "--first-delay-ms")
                return number(options.first_delay_ms);
            if (flag == "--acquire-delay-ms")
                return number(options.delay_ms);
            if (flag == "--never-signal-from")
                return number(options.never_from);
            if (flag == "--destroy-timeline-at")
                return number(options.destroy_timeline_at);
            if (flag == "--error")
                return options.error_mode = v, is_syncobj_error_mode(v);
            return false;
        });
    if (!ok)
        return 2;
    if (options.colors.empty())
        options.colors.push_back(window_options.color);

    std::string error;
    std::string device;
    const int drm_fd = open_syncobj_device(options.device, error, device);
    if (drm_fd < 0) {
        std::printf("kiln-syncobj-client: %s\n", error.c_str());
        return 77;
    }
    auto allocator = DmabufAllocator::open(DmabufSource::udmabuf, "", error);
    if (!allocator) {
        std::printf("kiln-syncobj-client: no udmabuf buffers here (%s)\n", error.c_str());
        close(drm_fd);
        return 77;
    }
    int status = 1;
    {
        ClientWindow window(window_options);
        if (!window.connect(error)) {
            std::fprintf(stderr, "kiln-syncobj-client: %s\n", error.c_str());
        } else {
            Globals globals;
            wl_registry* registry = wl_display_get_registry(window.display());
            wl_registry_add_listener(registry, &registry_listener, &globals);
            wl_display_roundtrip(window.display());
            if (globals.presentation)
                wp_presentation_add_listener(globals.presentation, &presentation_listener, &globals);
            wl_display_roundtrip(window.display());
            if (!globals.syncobj) {
                std::printf("kiln-syncobj-client: the compositor offers no wp_linux_drm_syncobj_manager_v1\n");
                status = 3;
            } else if (!window.dmabuf()) {
                std::printf("kiln-syncobj-client: the compositor offers no zwp_linux_dmabuf_v1\n");
            } else if (!options.error_mode.empty()) {
                status = provoke_syncobj_error({window.display(), globals.compositor, window.surface(), window.shm(),
                                                window.dmabuf(), globals.syncobj, *allocator, drm_fd, window.width(),
                                                window.height()},
                                               options.error_mode);
            } else {
                log_event("ready device=%s buffers=%d size=%dx%d", device.c_str(), options.buffers, window.width(),
                          window.height());
                Client client(window, globals, *allocator, drm_fd, options);
                if (!client.setup(error))
                    std::fprintf(stderr, "kiln-syncobj-client: %s\n", error.c_str());
                else
                    status = client.run();
            }
            wl_registry_destroy(registry);
        }
    }
    close(drm_fd);
    return status;
}
