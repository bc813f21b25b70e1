// Frame statistics: counted as outputs draw, reported under frames.* at exit.
#include "compositor/output/frame_stats.hpp"

#include <cstdio>

namespace kiln::compositor {

void FrameStats::count(OutputHooks& hooks, Stats& stats, std::function<void()> first_frame,
                       std::function<bool()> session_active)
{
    hooks.frame_rendered = [this, &stats, first_frame = std::move(first_frame),
                            session_active = std::move(session_active)](double cpu_ms, bool direct) {
        first_frame();
        rendered(cpu_ms, direct, session_active());
        stats.mark_once("startup.first_frame_ms");
    };
    hooks.frame_culled = [this](size_t surfaces) { culled(surfaces); };
    hooks.frame_fenced = [this](double ms) { fenced(ms); };
    hooks.frame_paced = [this](double fenced_ms, double to_commit_ms, bool drew_ahead) {
        paced(fenced_ms, to_commit_ms, drew_ahead);
    };
    hooks.frame_composed_on_cpu = [this] { composed_on_cpu(); };
}

void FrameStats::rendered(double cpu_ms, bool direct_scanout, bool session_active)
{
    ++frames_rendered_;
    if (direct_scanout)
        ++frames_direct_scanout_;
    if (frame_cpu_ms_.size() < 100000)
        frame_cpu_ms_.push_back(cpu_ms);
    if (!session_active)
        ++frames_while_inactive_;
}

void FrameStats::fenced(double ms)
{
    if (fence_ms_.size() < 100000)
        fence_ms_.push_back(ms);
}

void FrameStats::paced(double fenced_ms, double to_commit_ms, bool drew_ahead)
{
    if (drew_ahead)
        ++frames_render_ahead_;
    constexpr size_t max_entries = 50000;
    if (pacing_entries_ >= max_entries)
        return;
    ++pacing_entries_;
    char entry[64];
    std::snprintf(entry, sizeof entry, "%s%.1f,%.1f,%d", pacing_.empty() ? "" : " ", fenced_ms, to_commit_ms,
                  drew_ahead ? 1 : 0);
    pacing_ += entry;
}

void FrameStats::report(Stats& stats, uint64_t ring_slots) const
{
    stats.set("frames.rendered", frames_rendered_);
    stats.set("frames.direct_scanout", frames_direct_scanout_);
    stats.set("frames.composed_on_cpu", frames_composed_on_cpu_);
    stats.set("frames.cpu_ms_p50", median(frame_cpu_ms_));
    stats.set("frames.culled_surfaces", culled_surfaces_);
    stats.set("frames.render_ahead", frames_render_ahead_);
    stats.set("frames.pacing", pacing_);
    stats.set("frames.render_done_ms_p50", percentile(fence_ms_, 0.5));
    stats.set("frames.render_done_ms_p99", percentile(fence_ms_, 0.99));
    stats.set("frames.ring_slots", ring_slots);
}

}  // namespace kiln::compositor
