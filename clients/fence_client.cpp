// kiln-fence-client: a dma-buf window whose commits carry test-controlled sw_sync fences (implicit sync: the fence
// is imported into the buffer as its pending write), logging every commit, release, frame callback, presentation
// and fence signal with CLOCK_MONOTONIC times, so the VM tests can check what a compositor shows and when.
#include "clients/client_window.hpp"
#include "clients/dmabuf_allocator.hpp"
#include "clients/event_log.hpp"
#include "clients/fence_client_options.hpp"
#include "clients/sw_sync_timeline.hpp"

#include <drm_fourcc.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln::clients {
namespace {

class FenceClient;

struct Slot {
    FenceClient* owner = nullptr;
    int index = 0;
    std::unique_ptr<DmabufAllocation> memory;
    wl_buffer* buffer = nullptr;
    bool busy = false;
    uint64_t content = 0;
    uint32_t colour = 0;
};

// One commit and the events that answer it; lives until both its frame callback and its feedback are done.
struct CommitRecord {
    FenceClient* owner = nullptr;
    uint64_t seq = 0;
    wl_callback* frame = nullptr;
    struct wp_presentation_feedback* feedback = nullptr;  // "struct": a request function has the same name
};

// Cycle mode's colour for content number `n`: red and green step through 8x8 values, blue is the client's own (so
// several clients on screen stay apart). 64 distinct colours before one repeats.
uint32_t cycle_colour(uint64_t n, uint32_t base)
{
    const uint32_t r = 0x20 + static_cast<uint32_t>(n % 8) * 0x1c;
    const uint32_t g = 0x20 + static_cast<uint32_t>((n / 8) % 8) * 0x1c;
    return (r << 16) | (g << 8) | (base & 0xff);
}

class FenceClient {
public:
    FenceClient(const FenceClientOptions& options, ClientWindow& window, DmabufAllocator& allocator,
                SwSyncTimeline& timeline)
        : options_(options), window_(window), allocator_(allocator), timeline_(timeline)
    {
    }
    ~FenceClient()
    {
        for (auto& record : commits_) {
            if (record.frame)
                wl_callback_destroy(record.frame);
            if (record.feedback)
                wp_presentation_feedback_destroy(record.feedback);
        }
        for (auto& slot : slots_)
            if (slot.buffer)
                wl_buffer_destroy(slot.buffer);
    }
    FenceClient(const FenceClient&) = delete;
    FenceClient& operator=(const FenceClient&) = delete;

    // Runs until SIGTERM/SIGINT or a connection error; the process exit status.
    int run(int signal_fd);

    // Wayland events (from noexcept C callbacks).
    void on_release(Slot& slot) noexcept;
    void on_frame(CommitRecord& record) noexcept;
    void on_presented(CommitRecord& record, double at_ms, uint32_t refresh_ns, uint64_t msc, uint32_t flags) noexcept;
    void on_discarded(CommitRecord& record) noexcept;

private:
    bool start();
    bool commit(Slot& slot, bool fenced);
    bool fenced_commit();
    bool cycle_step(double now);
    bool signal_due(double now);
    bool signal_now();
    bool handle_stdin();
    void retire(CommitRecord& record);
    Slot* next_free_slot();
    double next_deadline();

    const FenceClientOptions& options_;
    ClientWindow& window_;
    DmabufAllocator& allocator_;
    SwSyncTimeline& timeline_;
    std::vector<Slot> slots_;
    std::list<CommitRecord> commits_;
    uint64_t next_seq_ = 0;
    uint64_t next_content_ = 0;
    std::string error_;
    // two/same modes: when the fenced commit is due (NAN: not yet known), and whether it happened.
    double fenced_commit_at_ = NAN;
    bool fenced_done_ = false;
    // Fence value -> when it is due to signal.
    std::map<uint32_t, double> signal_at_;
    // cycle: whether the last commit's frame callback came, and when the last commit was.
    bool frame_ready_ = true;
    double last_commit_ = -1e18;
    std::string stdin_buffer_;
    bool stdin_open_ = true;
};

const wl_buffer_listener release_listener = {
    [](void* data, wl_buffer*) noexcept {
        auto* slot = static_cast<Slot*>(data);
        slot->owner->on_release(*slot);
    },
};

const wl_callback_listener frame_listener = {
    [](void* data, wl_callback*, uint32_t) noexcept {
        auto* record = static_cast<CommitRecord*>(data);
        record->owner->on_frame(*record);
    },
};

const wp_presentation_feedback_listener feedback_listener = {
    [](void*, struct wp_presentation_feedback*, wl_output*) noexcept {},
    [](void* data, struct wp_presentation_feedback*, uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec, uint32_t refresh,
       uint32_t seq_hi, uint32_t seq_lo, uint32_t flags) noexcept {
        auto* record = static_cast<CommitRecord*>(data);
        const double sec = static_cast<double>((static_cast<uint64_t>(sec_hi) << 32) | sec_lo);
        const uint64_t msc = (static_cast<uint64_t>(seq_hi) << 32) | seq_lo;
        record->owner->on_presented(*record, sec * 1e3 + nsec / 1e6, refresh, msc, flags);
    },
    [](void* data, struct wp_presentation_feedback*) noexcept {
        auto* record = static_cast<CommitRecord*>(data);
        record->owner->on_discarded(*record);
    },
};

bool FenceClient::start()
{
    const auto w = static_cast<uint32_t>(window_.width());
    const auto h = static_cast<uint32_t>(window_.height());
    const size_t count = options_.mode == FenceMode::cycle ? static_cast<size_t>(options_.buffers)
                         : options_.mode == FenceMode::two_buffers ? 2
                                                                   : 1;
    slots_.resize(count);
    for (size_t i = 0; i < count; ++i) {
        Slot& slot = slots_[i];
        slot.owner = this;
        slot.index = static_cast<int>(i);
        slot.memory = allocator_.allocate(w, h, DRM_FORMAT_XRGB8888, error_);
        if (!slot.memory)
            return false;
        const auto& m = *slot.memory;
        zwp_linux_buffer_params_v1* params = zwp_linux_dmabuf_v1_create_params(window_.dmabuf());
        zwp_linux_buffer_params_v1_add(params, m.fd, 0, m.offset, m.stride, static_cast<uint32_t>(m.modifier >> 32),
                                       static_cast<uint32_t>(m.modifier & 0xffffffffu));
        slot.buffer = zwp_linux_buffer_params_v1_create_immed(params, static_cast<int32_t>(w),
                                                              static_cast<int32_t>(h), DRM_FORMAT_XRGB8888, 0);
        zwp_linux_buffer_params_v1_destroy(params);
        wl_buffer_add_listener(slot.buffer, &release_listener, &slot);
        // A first colour for every buffer: A (two/same), or the next content number (cycle).
        slot.content = options_.mode == FenceMode::cycle ? next_content_++ : 0;
        slot.colour = options_.mode == FenceMode::cycle ? cycle_colour(slot.content, options_.window.color)
                                                        : options_.window.color;
        if (!allocator_.fill(*slot.memory, w, h, slot.colour, error_, false))
            return false;
        log_event("write buffer=%d content=%llu colour=%06x", slot.index,
                  static_cast<unsigned long long>(slot.content), slot.colour);
    }
    if (options_.mode != FenceMode::cycle)
        return commit(slots_[0], false);
    return true;
}

bool FenceClient::commit(Slot& slot, bool fenced)
{
    uint32_t fence_value = 0;
    if (fenced) {
        UniqueFd fence = timeline_.create_fence(error_);
        if (!fence || !import_write_fence(slot.memory->fd, fence.get(), error_))
            return false;
        fence_value = timeline_.created();
    }
    CommitRecord& record = commits_.emplace_back();
    record.owner = this;
    record.seq = next_seq_++;
    record.frame = wl_surface_frame(window_.surface());
    wl_callback_add_listener(record.frame, &frame_listener, &record);
    if (window_.presentation()) {
        record.feedback = wp_presentation_feedback(window_.presentation(), window_.surface());
        wp_presentation_feedback_add_listener(record.feedback, &feedback_listener, &record);
    }
    slot.busy = true;
    wl_surface_attach(window_.surface(), slot.buffer, 0, 0);
    wl_surface_damage_buffer(window_.surface(), 0, 0, window_.width(), window_.height());
    wl_surface_commit(window_.surface());
    wl_display_flush(window_.display());
    const double now = monotonic_ms();
    log_event("commit seq=%llu buffer=%d content=%llu colour=%06x fenced=%d fence=%u",
              static_cast<unsigned long long>(record.seq), slot.index, static_cast<unsigned long long>(slot.content),
              slot.colour, fenced ? 1 : 0, fence_value);
    last_commit_ = now;
    frame_ready_ = false;
    if (fenced && options_.signal_after_ms >= 0 && !options_.never_signal)
        signal_at_[fence_value] = now + options_.signal_after_ms;
    return true;
}

bool FenceClient::fenced_commit()
{
    fenced_done_ = true;
    if (options_.mode == FenceMode::two_buffers) {
        // B is in memory before the commit: only the fence says it is not ready yet.
        Slot& b = slots_[1];
        b.colour = options_.color_b;
        b.content = 1;
        if (!allocator_.fill(*b.memory, static_cast<uint32_t>(window_.width()),
                             static_cast<uint32_t>(window_.height()), b.colour, error_, false))
            return false;
        log_event("write buffer=%d content=1 colour=%06x", b.index, b.colour);
        return commit(b, true);
    }
    // same-buffer: the buffer still holds A; B lands when the fence signals, as a GPU job that ends in the fence.
    return commit(slots_[0], true);
}

bool FenceClient::signal_now()
{
    const uint32_t value = timeline_.created();
    if (value == timeline_.signalled())
        return true;
    if (options_.mode == FenceMode::same_buffer) {
        Slot& slot = slots_[0];
        slot.colour = options_.color_b;
        slot.content = 1;
        // No DMA_BUF_IOCTL_SYNC: it would wait for the very fence this write is about to signal.
        if (!allocator_.fill(*slot.memory, static_cast<uint32_t>(window_.width()),
                             static_cast<uint32_t>(window_.height()), slot.colour, error_, false))
            return false;
        log_event("write buffer=%d content=1 colour=%06x", slot.index, slot.colour);
    }
    if (!timeline_.signal_through(value, error_))
        return false;
    log_event("signal fence=%u", value);
    signal_at_.clear();
    return true;
}

bool FenceClient::signal_due(double now)
{
    while (!signal_at_.empty() && signal_at_.begin()->second <= now) {
        const uint32_t value = signal_at_.begin()->first;
        signal_at_.erase(signal_at_.begin());
        if (options_.mode == FenceMode::same_buffer)
            return signal_now();
        if (!timeline_.signal_through(value, error_))
            return false;
        log_event("signal fence=%u", value);
    }
    return true;
}

bool FenceClient::cycle_step(double now)
{
    if ((!frame_ready_ && !options_.unthrottled) || now < last_commit_ + options_.interval_ms)
        return true;
    Slot* next = next_free_slot();
    return !next || commit(*next, options_.signal_after_ms >= 0);
}

Slot* FenceClient::next_free_slot()
{
    // The free buffer written longest ago holds the next content in order.
    Slot* next = nullptr;
    for (auto& slot : slots_)
        if (!slot.busy && (!next || slot.content < next->content))
            next = &slot;
    return next;
}

void FenceClient::on_release(Slot& slot) noexcept
{
    log_event("release buffer=%d content=%llu", slot.index, static_cast<unsigned long long>(slot.content));
    slot.busy = false;
    if (options_.mode != FenceMode::cycle)
        return;
    slot.content = next_content_++;
    if (options_.keep_colours)
        return;
    // Straight away, so a buffer released while still on screen shows a colour no commit has asked for yet.
    slot.colour = cycle_colour(slot.content, options_.window.color);
    if (!allocator_.fill(*slot.memory, static_cast<uint32_t>(window_.width()), static_cast<uint32_t>(window_.height()),
                         slot.colour, error_, false)) {
        std::fprintf(stderr, "kiln-fence-client: %s\n", error_.c_str());
        return;
    }
    log_event("write buffer=%d content=%llu colour=%06x", slot.index, static_cast<unsigned long long>(slot.content),
              slot.colour);
}

void FenceClient::on_frame(CommitRecord& record) noexcept
{
    log_event("frame seq=%llu", static_cast<unsigned long long>(record.seq));
    wl_callback_destroy(record.frame);
    record.frame = nullptr;
    if (record.seq + 1 == next_seq_)
        frame_ready_ = true;
    if (options_.mode != FenceMode::cycle && record.seq == 0 && !options_.commit_on_stdin)
        fenced_commit_at_ = monotonic_ms() + options_.commit_after_ms;
    retire(record);
}

void FenceClient::on_presented(CommitRecord& record, double at_ms, uint32_t refresh_ns, uint64_t msc,
                               uint32_t flags) noexcept
{
    if (window_.presentation_clock() == CLOCK_MONOTONIC)
        log_event("presented seq=%llu at=%.3f refresh_ns=%u flags=0x%x msc=%llu",
                  static_cast<unsigned long long>(record.seq), at_ms, refresh_ns, flags,
                  static_cast<unsigned long long>(msc));
    else
        log_event("presented seq=%llu at=? refresh_ns=%u flags=0x%x msc=%llu",
                  static_cast<unsigned long long>(record.seq), refresh_ns, flags, static_cast<unsigned long long>(msc));
    wp_presentation_feedback_destroy(record.feedback);
    record.feedback = nullptr;
    retire(record);
}

void FenceClient::on_discarded(CommitRecord& record) noexcept
{
    log_event("discarded seq=%llu", static_cast<unsigned long long>(record.seq));
    wp_presentation_feedback_destroy(record.feedback);
    record.feedback = nullptr;
    retire(record);
}

void FenceClient::retire(CommitRecord& record)
{
    if (record.frame || record.feedback)
        return;
    for (auto it = commits_.begin(); it != commits_.end(); ++it)
        if (&*it == &record) {
            commits_.erase(it);
            return;
        }
}

bool FenceClient::handle_stdin()
{
    char chunk[256];
    const ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));
    if (n <= 0) {
        stdin_open_ = false;  // EOF: no more commands, keep running
        return true;
    }
    stdin_buffer_.append(chunk, static_cast<size_t>(n));
    size_t end;
    while ((end = stdin_buffer_.find('\n')) != std::string::npos) {
        const std::string line = stdin_buffer_.substr(0, end);
        stdin_buffer_.erase(0, end + 1);
        if (line == "signal") {
            if (!signal_now())
                return false;
        } else if (line == "commit" && options_.mode != FenceMode::cycle && !fenced_done_) {
            fenced_commit_at_ = monotonic_ms();
        } else if (!line.empty()) {
            log_event("unknown-command %s", line.c_str());
        }
    }
    return true;
}

double FenceClient::next_deadline()
{
    double deadline = INFINITY;
    if (!std::isnan(fenced_commit_at_) && !fenced_done_)
        deadline = fenced_commit_at_;
    if (!signal_at_.empty())
        deadline = std::min(deadline, signal_at_.begin()->second);
    if (options_.mode == FenceMode::cycle && (frame_ready_ || options_.unthrottled) && next_free_slot())
        deadline = std::min(deadline, last_commit_ + options_.interval_ms);
    return deadline;
}

int FenceClient::run(int signal_fd)
{
    if (!start()) {
        std::fprintf(stderr, "kiln-fence-client: %s\n", error_.c_str());
        return 1;
    }
    wl_display* display = window_.display();
    while (true) {
        const double now = monotonic_ms();
        if (!fenced_done_ && !std::isnan(fenced_commit_at_) && now >= fenced_commit_at_ && !fenced_commit())
            break;
        if (!signal_due(now))
            break;
        if (options_.mode == FenceMode::cycle && !cycle_step(now))
            break;

        while (wl_display_prepare_read(display) != 0)
            wl_display_dispatch_pending(display);
        wl_display_flush(display);
        const double deadline = next_deadline();
        const int timeout = std::isinf(deadline) ? -1 : std::max(0, static_cast<int>(std::ceil(deadline - now)));
        pollfd fds[3] = {{wl_display_get_fd(display), POLLIN, 0},
                         {signal_fd, POLLIN, 0},
                         {stdin_open_ ? STDIN_FILENO : -1, POLLIN, 0}};
        if (poll(fds, 3, timeout) < 0 && errno != EINTR) {
            wl_display_cancel_read(display);
            error_ = std::string("poll: ") + std::strerror(errno);
            break;
        }
        if (fds[0].revents & POLLIN) {
            if (wl_display_read_events(display) != 0) {
                error_ = std::string("connection lost: ") + std::strerror(wl_display_get_error(display));
                break;
            }
        } else {
            wl_display_cancel_read(display);
        }
        if (wl_display_dispatch_pending(display) < 0) {
            error_ = std::string("protocol error: ") + std::strerror(wl_display_get_error(display));
            break;
        }
        if (fds[1].revents & POLLIN) {
            signalfd_siginfo info{};
            if (read(signal_fd, &info, sizeof(info)) == sizeof(info)) {
                if (info.ssi_signo == SIGUSR1) {
                    if (!signal_now())
                        break;
                } else {
                    log_event("exit signal=%u", info.ssi_signo);
                    return 0;
                }
            }
        }
        if ((fds[2].revents & (POLLIN | POLLHUP)) && !handle_stdin())
            break;
        if (!error_.empty())
            break;
    }
    std::fprintf(stderr, "kiln-fence-client: %s\n", error_.empty() ? "stopped" : error_.c_str());
    return 1;
}

}  // namespace
}  // namespace kiln::clients

int main(int argc, char** argv)
{
    using namespace kiln::clients;
    FenceClientOptions options;
    if (!parse_fence_client_options(argc, argv, options))
        return 2;

    // Signals arrive as reads on a signalfd, in the event loop: no work in a signal handler.
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGUSR1);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigprocmask(SIG_BLOCK, &mask, nullptr);
    UniqueFd signal_fd(signalfd(-1, &mask, SFD_CLOEXEC));

    std::string error;
    SwSyncTimeline timeline = SwSyncTimeline::open(options.timeline_fd, error);
    if (!timeline) {
        std::printf("kiln-fence-client: no sw_sync here (%s)\n", error.c_str());
        return 77;
    }
    auto allocator = DmabufAllocator::open(options.source, "", error);
    if (!allocator) {
        std::printf("kiln-fence-client: no %s buffers here (%s)\n",
                    options.source == DmabufSource::heap ? "dma-heap" : "udmabuf", error.c_str());
        return 77;
    }
    ClientWindow window(options.window);
    if (!window.connect(error)) {
        std::fprintf(stderr, "kiln-fence-client: %s\n", error.c_str());
        return 1;
    }
    if (!window.dmabuf()) {
        std::fprintf(stderr, "kiln-fence-client: the compositor offers no zwp_linux_dmabuf_v1\n");
        return 1;
    }
    static const char* const mode_names[] = {"two-buffers", "same-buffer", "cycle"};
    log_event("ready mode=%s source=%s size=%dx%d presentation=%d clock=%u pid=%d",
              mode_names[static_cast<int>(options.mode)], allocator->name(), window.width(), window.height(),
              window.presentation() ? 1 : 0, window.presentation_clock(), static_cast<int>(getpid()));
    FenceClient client(options, window, *allocator, timeline);
    return client.run(signal_fd.get());
}
