// VirtualVblank: the display clock of an output that has none (headless): ticks on an exact grid of refresh periods.
#pragma once

#include <cstdint>
#include <functional>

struct wl_event_loop;
struct wl_event_source;

namespace kiln::compositor {

// wlroots 0.15's headless output re-arms its frame timer only after the frame handler has returned, and in whole
// milliseconds: each period is 16 ms plus the time the frame took, so an output that draws for 2 ms runs at 55 Hz.
// A periodic timerfd keeps the ticks on the grid whatever a frame costs; ticks the loop was too busy to take are
// skipped, as a real display's vblanks would be.
class VirtualVblank {
public:
    VirtualVblank(wl_event_loop* loop, std::function<void()> tick);
    ~VirtualVblank();
    VirtualVblank(const VirtualVblank&) = delete;
    VirtualVblank& operator=(const VirtualVblank&) = delete;

    // False when the timer could not be made: the owner then keeps the backend's own pacing.
    bool valid() const { return source_ != nullptr; }
    // Starts (or re-times) the ticks for a refresh rate in mHz; a rate <= 0 means 60 Hz, as wlroots' headless does.
    void set_refresh(int32_t refresh_mhz);
    int64_t period_ns() const { return period_ns_; }
    // Ticks since the clock started that were never delivered because the loop was busy through them.
    uint64_t skipped() const { return skipped_; }
    // The grid time (CLOCK_MONOTONIC, ns) and number of the latest tick: a frame composed on it is "presented" there,
    // so presentation feedback carries the display's own clock, not the moment a loaded loop got round to it.
    int64_t last_tick_ns() const { return start_ns_ + static_cast<int64_t>(ticks_) * period_ns_; }
    uint64_t ticks() const { return ticks_; }

private:
    static int on_readable(int fd, uint32_t mask, void* data) noexcept;

    int fd_ = -1;
    wl_event_source* source_ = nullptr;
    int64_t period_ns_ = 0;
    int64_t start_ns_ = 0;  // the grid's origin: ticks fall on start + k * period
    uint64_t ticks_ = 0;    // periods elapsed since start, delivered or skipped
    uint64_t skipped_ = 0;
    std::function<void()> tick_;
};

}  // namespace kiln::compositor
