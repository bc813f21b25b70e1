// RenderStart: kiln's renderer from start-up on: the program cache, the render bridge (EGL at start, or when something
// first needs GL where a cached display profile says frames are composed on the CPU), its start-up stats, and
// preparing programs before the first frame or one per idle moment after it.
#pragma once

#include "compositor/session/options.hpp"
#include "compositor/stats.hpp"
#include "compositor/wlr.hpp"

#include "renderer/cache/tiered_program_cache.hpp"
#include "renderer/colour/colour_variant.hpp"
#include "renderer/shaders.hpp"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kiln::compositor {

class RenderBridge;

class RenderStart {
public:
    // `options` and `stats` outlive this; `display` is read when background preparing starts.
    RenderStart(const Options& options, Stats& stats, wl_display* const& display);
    // Stops preparing in the background and destroys the wlr_renderer (and with it the bridge), then the program
    // cache; anything that renders (the allocator, outputs) must be gone by then.
    ~RenderStart();
    RenderStart(const RenderStart&) = delete;
    RenderStart& operator=(const RenderStart&) = delete;

    // The render bridge for the backend's DRM fd, then composition and precompile modes resolved and, for
    // --precompile fast, every program prepared; false (with `error`) when kiln cannot render.
    bool start(int drm_fd, std::string& error);
    RenderBridge& bridge() const { return *bridge_; }
    wlr_renderer* wlr() const { return renderer_; }
    // The first frame was drawn: background preparing may begin.
    void first_frame();
    // Writes what the program cache learnt this run (the precompile list) before kiln exits.
    void flush();
    void report(Stats& stats) const;

private:
    // The render bridge, with EGL started now or (warm cache, CPU composition) when something first needs GL.
    bool create_renderer(int drm_fd, std::string& error);
    // Starts preparing programs one per idle moment, once per run: after the first frame and with EGL up.
    void start_background_prepare();
    // The program cache's lines: on stderr, but a second one about a folder already reported goes to the debug log.
    void cache_log(const std::string& message) const;
    // Prepares the programs the precompile list names (all fixed ones on a first run, and the colour conversion
    // variants earlier runs used); with `one_only`, just the next one. Returns whether it prepared one (and more may
    // remain).
    bool prepare_programs(bool one_only);
    // The colour variants the precompile list names whose program this kiln would build the same (a name from an
    // older kiln whose shader text has changed since is left to compile on first use, like any new program).
    std::vector<renderer::ColourVariant> listed_colour_variants() const;

    const Options& options_;
    Stats& stats_;
    wl_display* const& display_;
    std::unique_ptr<cache::TieredProgramCache> programs_;
    RenderBridge* bridge_ = nullptr;  // owned by wlroots through renderer_, which this destroys
    wlr_renderer* renderer_ = nullptr;
    PrecompileMode precompile_ = PrecompileMode::fast;  // options' mode, automatic resolved
    std::set<renderer::ShaderVariant> prepare_failed_;
    std::optional<std::vector<renderer::ColourVariant>> colour_listed_;  // read from the list on first prepare
    std::set<renderer::ColourVariant> colour_failed_;
    uint64_t colour_prepared_ = 0;
    wl_event_source* background_prepare_ = nullptr;
    bool background_started_ = false;
    bool first_frame_drawn_ = false;
    std::string display_profile_source_;  // "cached", "probed, stored" or "probed"
};

}  // namespace kiln::compositor
