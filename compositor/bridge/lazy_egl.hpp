// LazyEgl: the EGL display and kiln's renderer, opened at start or, where a cached display profile lets kiln wait
// (frames composed on the CPU), when something first needs GL; with the profile clients and wlroots are told either
// way, and the start-up times and counters of textures made before EGL.
#pragma once

#include "renderer/display_profile.hpp"
#include "renderer/renderer_stats.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <string>

// Named only: their headers carry GL and EGL, which the compositor outside bridge/ never sees.
namespace kiln::renderer {
class EglDisplay;
class ProgramCache;
class Renderer;
}  // namespace kiln::renderer

namespace kiln::compositor {

class LazyEgl {
public:
    // For the backend's DRM fd (-1 when none); `shm_cpu_copies` says, when the renderer is made, whether shm
    // textures keep a CPU copy (frames may be composed on the CPU).
    LazyEgl(int drm_fd, renderer::ProgramCache& programs, std::function<bool()> shm_cpu_copies);
    // The renderer goes first, with the context current, then the display.
    ~LazyEgl();
    LazyEgl(const LazyEgl&) = delete;
    LazyEgl& operator=(const LazyEgl&) = delete;

    // Opens EGL and makes the renderer now, and tells the profile of that display; false with `error`.
    bool start_now(std::string& error);
    // Opens nothing yet: `cached` is the profile of the display it would open, told until EGL starts.
    void start_later(renderer::DisplayProfile cached) { profile_ = std::move(cached); }

    bool started() const { return display_ != nullptr; }
    // Starts EGL and the renderer if they are not yet (`reason` is logged and kept for --stats) and makes the
    // context current; false if EGL cannot start (said once, and not tried again).
    bool ensure(const char* reason);
    // Makes the context current where EGL has started (before GL objects are made or deleted).
    void make_current_if_started();
    // Why EGL started late ("" when it started with kiln or not at all).
    const std::string& started_by() const { return started_by_; }
    // Called once EGL has started late, with the display as it really is.
    void on_started(std::function<void()> callback) { on_started_ = std::move(callback); }

    // Only once EGL has started.
    renderer::Renderer& renderer() { return *renderer_; }
    renderer::EglDisplay& display() { return *display_; }
    // The display as clients and wlroots see it (kind, driver, device, dma-buf formats), EGL started or not.
    const renderer::DisplayProfile& profile() const { return profile_; }
    // Where textures count what they cost: the renderer's counters, or before EGL the early ones.
    renderer::RendererStats& texture_stats();
    // The renderer's counters, with those of textures made before EGL started.
    renderer::RendererStats stats() const;
    // When the EGL context existed (late, if it started late) and when the renderer was made, for start-up stats.
    std::chrono::steady_clock::time_point ready_at() const { return ready_at_; }
    std::chrono::steady_clock::time_point programs_ready_at() const { return programs_ready_at_; }

private:
    // Opens EGL and makes the renderer; false with `error`.
    bool open(std::string& error);

    int drm_fd_;
    renderer::ProgramCache& programs_;
    std::function<bool()> shm_cpu_copies_;
    renderer::DisplayProfile profile_;
    std::unique_ptr<renderer::EglDisplay> display_;
    std::unique_ptr<renderer::Renderer> renderer_;
    renderer::RendererStats early_stats_;  // shm textures made before EGL started count here (they keep the pointer)
    bool failed_ = false;
    std::string started_by_;
    std::function<void()> on_started_;
    std::chrono::steady_clock::time_point ready_at_;
    std::chrono::steady_clock::time_point programs_ready_at_;
};

}  // namespace kiln::compositor
