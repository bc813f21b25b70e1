// FrameStats: what kiln's frames did, for --stats: how many were drawn (scanned out directly, composed on the CPU,
// drawn ahead, drawn while the session was away), their CPU time, surfaces culled, and render-done times.
#pragma once

#include "compositor/output/output_hooks.hpp"
#include "compositor/stats.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kiln::compositor {

class FrameStats {
public:
    // Points `hooks`' frame_* members here; a drawn frame runs `first_frame` before it is counted and marks
    // startup.first_frame_ms in `stats` once after. `session_active` says whether the session was away.
    void count(OutputHooks& hooks, Stats& stats, std::function<void()> first_frame,
               std::function<bool()> session_active);
    void rendered(double cpu_ms, bool direct_scanout, bool session_active);
    // Surfaces in a frame's damage that were wholly under opaque ones, so not drawn.
    void culled(size_t surfaces) { culled_surfaces_ += surfaces; }
    // Time from a frame's start until its render-done fence signalled.
    void fenced(double ms);
    // A committed frame's measured times and whether the next one was drawn ahead after it (frames.pacing: one
    // "fenced,to_commit,ahead" entry per commit, in order, so a test can tell what each drawn-ahead frame followed).
    void paced(double fenced_ms, double to_commit_ms, bool drew_ahead);
    void composed_on_cpu() { ++frames_composed_on_cpu_; }
    uint64_t while_inactive() const { return frames_while_inactive_; }
    // The frames.* keys; `ring_slots` is the most any output's ring holds.
    void report(Stats& stats, uint64_t ring_slots) const;

private:
    std::vector<double> frame_cpu_ms_;
    std::vector<double> fence_ms_;
    uint64_t frames_rendered_ = 0;
    uint64_t frames_direct_scanout_ = 0;
    uint64_t culled_surfaces_ = 0;
    uint64_t frames_render_ahead_ = 0;
    std::string pacing_;  // capped: a long session keeps its first entries
    size_t pacing_entries_ = 0;
    uint64_t frames_composed_on_cpu_ = 0;
    uint64_t frames_while_inactive_ = 0;  // drawn while the session was away: each one's commit failed
};

}  // namespace kiln::compositor
