// Renderer start-up: the display profile from the cache (or probed and stored), the render bridge, the precompile mode,
// preparing programs, and the program cache's and renderer's stats.
#include "compositor/bridge/render_start.hpp"

#include "compositor/bridge/render_bridge.hpp"
#include "compositor/log.hpp"
#include "renderer/cache/disk_tier.hpp"
#include "renderer/cache/display_profile_file.hpp"
#include "renderer/cache/driver_fingerprint.hpp"
#include "renderer/cache/driver_shader_cache.hpp"
#include "renderer/colour/colour_shaders.hpp"
#include "renderer/renderer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>

namespace kiln::compositor {
namespace {

// Whether kiln can write in `root` (or make it: the nearest folder that exists is writable). A cache folder it cannot
// use is reported once, by the program cache; the display profile then goes uncached without lines of its own.
bool cache_folder_writable(const std::filesystem::path& root)
{
    std::error_code ec;
    std::filesystem::path folder = root;
    while (!folder.empty() && !std::filesystem::exists(folder, ec) && folder.has_parent_path() &&
           folder.parent_path() != folder)
        folder = folder.parent_path();
    return std::filesystem::is_directory(folder, ec) && access(folder.c_str(), W_OK | X_OK) == 0;
}

cache::CacheOptions cache_options(const Options& options, std::function<void(const std::string&)> log = {})
{
    cache::CacheOptions out;
    out.log = std::move(log);
    out.user_dir = options.cache_dir.empty() ? cache::default_user_cache_dir() : std::filesystem::path(options.cache_dir);
    out.system_dir = options.system_cache_dir;
    return out;
}

}  // namespace

RenderStart::RenderStart(const Options& options, Stats& stats, wl_display* const& display)
    : options_(options),
      stats_(stats),
      display_(display),
      programs_(std::make_unique<cache::TieredProgramCache>(
          cache_options(options, [this](const std::string& message) { cache_log(message); })))
{
}

RenderStart::~RenderStart()
{
    if (background_prepare_)
        wl_event_source_remove(background_prepare_);
    // Before the program cache (a member, destroyed after this body), which the renderer reads.
    if (renderer_)
        wlr_renderer_destroy(renderer_);
}

void RenderStart::flush()
{
    if (background_prepare_)
        wl_event_source_remove(background_prepare_);
    background_prepare_ = nullptr;
    programs_->flush();
}

void RenderStart::cache_log(const std::string& message) const
{
    // The disk tier says once that it cannot write its folder (a full disk); the precompile list failing to save
    // there has the same cause, so it goes to the debug log instead of being a second warning.
    const cache::DiskTier* tier = programs_ ? programs_->user_tier() : nullptr;
    if (tier && !tier->writable() && message.starts_with("program cache: cannot save ")) {
        log::debug("%s", message.c_str());
        return;
    }
    log::error("%s", message.c_str());
}

bool RenderStart::create_renderer(int drm_fd, std::string& error)
{
    // The display's profile (kind, driver, dma-buf formats, software or not) from the cache, keyed by what decides
    // it, so a warm start knows it without opening EGL.
    const std::filesystem::path cache_root = cache_options(options_).user_dir;
    std::optional<renderer::DisplayProfile> cached;
    cache::Sha1 key{};
    std::error_code ec;
    const bool cache_usable = !cache_root.empty() && cache_folder_writable(cache_root);
    const bool cache_readable = !cache_root.empty() && (cache_usable || std::filesystem::is_directory(cache_root, ec));
    if (cache_readable) {
        const auto start = Stats::Clock::now();
        key = cache::driver_fingerprint_key(cache::driver_fingerprint(drm_fd));
        std::string why;
        cached = cache::load_display_profile(cache_root, key, why);
        if (!why.empty())
            log::error("cached display profile not used: %s", why.c_str());
        stats_.set("startup.display_profile_ms", stats_.ms_since(start));
    }
    // EGL waits where frames are composed on the CPU (GL is software) and no program must be ready before the first
    // frame (--precompile fast asks for exactly that, so it keeps EGL at start).
    const bool lazy = cached && cached->software && options_.composition == CompositionMode::automatic &&
                      options_.precompile != PrecompileMode::fast;
    std::string render_error;
    bridge_ = RenderBridge::create(drm_fd, *programs_, lazy ? cached : std::nullopt, render_error);
    if (!bridge_) {
        error = "cannot create kiln's renderer: " + render_error;
        return false;
    }
    renderer_ = bridge_->wlr();
    display_profile_source_ = cached ? "cached" : !cache_usable ? "probed" : "probed, stored";
    auto remember = [this, cache_root, cache_usable, key, cached] {
        if (!cache_usable || (cached && cached->same_as(bridge_->egl().profile())))
            return;
        std::string why;
        if (!cache::store_display_profile(cache_root, key, bridge_->egl().profile(), why)) {
            log::error("cannot cache the display profile: %s", why.c_str());
            display_profile_source_ = "probed";
        }
    };
    if (bridge_->egl().started())
        remember();
    bridge_->egl().on_started([this, remember] {
        stats_.set("renderer.egl_started_ms", stats_.ms_since_start(bridge_->egl().ready_at()));
        remember();
        if (first_frame_drawn_)
            start_background_prepare();
    });
    return true;
}

bool RenderStart::start(int drm_fd, std::string& error)
{
    if (!create_renderer(drm_fd, error))
        return false;
    const bool cpu_composition = bridge_->enable_cpu_composition(options_.composition == CompositionMode::automatic);
    stats_.set("renderer.composition", std::string(cpu_composition ? "cpu where possible, else gl" : "gl"));
    precompile_ = options_.precompile;
    if (precompile_ == PrecompileMode::automatic)
        precompile_ = cpu_composition ? PrecompileMode::background : PrecompileMode::fast;
    if (bridge_->egl().started()) {
        stats_.set("startup.egl_init_ms", stats_.ms_since_start(bridge_->egl().ready_at()));
        stats_.set("startup.format_probe_ms", bridge_->egl().display().format_probe_ms());
        const auto& egl = bridge_->egl().display().open_times();
        stats_.set("startup.egl.client_ms", egl.client_ms);
        stats_.set("startup.egl.devices_ms", egl.devices_ms);
        stats_.set("startup.egl.initialize_ms", egl.initialize_ms);
        stats_.set("startup.egl.context_ms", egl.context_ms);
        stats_.set("startup.egl.identify_ms", egl.identify_ms);
    }
    if (precompile_ == PrecompileMode::fast) {
        // Before the first frame: every program the last runs used (all of them on a first run), linked and drawn
        // once, so no frame pays for a compile.
        const auto start = Stats::Clock::now();
        prepare_programs(false);
        stats_.set("startup.programs_prepare_ms", stats_.ms_since(start));
        // Split so kiln's own program work (what its cache saves) is told apart from the driver's first-draw JIT.
        const auto& times = bridge_->egl().renderer().prepare_times();
        stats_.set("startup.programs_fetch_ms", times.fetch_ms);
        stats_.set("startup.programs_first_draw_ms", times.first_draw_ms);
    }
    if (precompile_ != PrecompileMode::background)
        stats_.mark_once("startup.programs_ready_ms");
    return true;
}

void RenderStart::first_frame()
{
    // Without EGL, background precompiling waits for EGL to start (on_egl_started).
    if (first_frame_drawn_)
        return;
    first_frame_drawn_ = true;
    start_background_prepare();
}

bool RenderStart::prepare_programs(bool one_only)
{
    auto& renderer = bridge_->egl().renderer();
    for (renderer::ShaderVariant variant : renderer.variants()) {
        if (renderer.prepared(variant) || prepare_failed_.contains(variant))
            continue;
        const auto& source = renderer::shader_source(variant);
        if (programs_->has_precompile_list() && !programs_->listed(source))
            continue;  // never used here: it compiles on first use, like a new program
        std::string error;
        if (!renderer.prepare(variant, error)) {
            prepare_failed_.insert(variant);
            log::error("cannot prepare program %s: %s", source.name.c_str(), error.c_str());
        }
        if (one_only)
            return true;
    }
    // Colour conversion programs: only those earlier runs used (there are hundreds of possible variants).
    if (!colour_listed_)
        colour_listed_ = listed_colour_variants();
    const std::vector<renderer::ShaderVariant> variants = renderer.variants();
    for (const renderer::ColourVariant& colour : *colour_listed_) {
        if (renderer.colour_prepared(colour.sampling, colour.key) || colour_failed_.contains(colour) ||
            std::find(variants.begin(), variants.end(), colour.sampling) == variants.end())
            continue;
        std::string error;
        if (renderer.prepare_colour(colour.sampling, colour.key, error)) {
            ++colour_prepared_;
        } else {
            colour_failed_.insert(colour);
            log::error("cannot prepare colour program %s: %s", renderer::colour_program_name(colour).c_str(),
                       error.c_str());
        }
        if (one_only)
            return true;
    }
    return false;
}

std::vector<renderer::ColourVariant> RenderStart::listed_colour_variants() const
{
    std::vector<renderer::ColourVariant> out;
    for (const std::string& name : programs_->listed_names())
        if (auto colour = renderer::parse_colour_program_name(name))
            if (programs_->listed(renderer::colour_program_source(colour->sampling, colour->key)))
                out.push_back(*colour);
    return out;
}

void RenderStart::start_background_prepare()
{
    if (background_started_ || precompile_ != PrecompileMode::background || !bridge_->egl().started())
        return;
    background_started_ = true;
    // After the first frame (and once EGL is up), one program per turn of the event loop. A timer rather than a
    // chain of idle sources: libwayland runs idle sources until none is left, new ones included, so a chain linked
    // every program before the loop served a client or a signal again (seconds on a slow machine: a SIGTERM in a
    // VM waited for all of them).
    auto step = [](void* data) noexcept -> int {
        auto* self = static_cast<RenderStart*>(data);
        if (self->prepare_programs(true)) {
            wl_event_source_timer_update(self->background_prepare_, 1);
        } else {
            // A kiln that exits first (--exit-with-startup, SIGTERM) stops here with no programs_ready_ms; tests
            // that need it wait for this line (--debug) before they stop kiln.
            self->stats_.mark_once("startup.programs_ready_ms");
            log::info("background precompile done: every listed program is ready");
        }
        return 0;
    };
    background_prepare_ = wl_event_loop_add_timer(wl_display_get_event_loop(display_), step, this);
    if (background_prepare_)
        wl_event_source_timer_update(background_prepare_, 1);
}

void RenderStart::report(Stats& stats) const
{
    // The disk tiers' background load (GC, the torn-entry check, blobs) may still run when a short session ends; the
    // tiers join it on destruction anyway, so waiting here costs the exit nothing and the counts below are whole.
    programs_->wait_for_disk_load();
    programs_->stats().report([&](const std::string& key, uint64_t n) { stats.set("programs." + key, n); },
                              [&](const std::string& key, double v) { stats.set("programs." + key, v); });
    stats.set("programs.disk_load_ms", programs_->disk_load_ms());
    stats.set("programs.disk_entries_discarded", programs_->disk_discarded());
    stats.set("programs.blob_cache_installed", uint64_t{programs_->blob_cache_installed()});
    stats.set("programs.memory_bytes", uint64_t{programs_->memory().bytes()});
    // Colour conversion programs prepared ahead of use because the precompile list named them.
    stats.set("programs.colour_prepared", colour_prepared_);
    if (auto* user = programs_->user_tier()) {
        stats.set("programs.disk_bytes_before_gc", user->stats().bytes_before_gc.load());
        stats.set("programs.disk_bytes_after_gc", user->stats().bytes_after_gc.load());
        stats.set("programs.disk_entries", user->stats().entries.load());
    }
    // The drivers' own shader caches kiln placed in its directory (kiln-cache stats counts them the same way).
    for (const auto& usage : cache::driver_cache_usage(cache_options(options_).user_dir)) {
        stats.set("driver_caches." + usage.subdir + ".files", usage.files);
        stats.set("driver_caches." + usage.subdir + ".bytes", usage.bytes);
    }
    if (bridge_) {
        const bool started = bridge_->egl().started();
        stats.set("renderer.egl_display", std::string(started ? bridge_->egl().profile().kind_name() : "not started"));
        stats.set("renderer.driver", started ? bridge_->egl().profile().driver_name : std::string("not started"));
        if (started) {
            // What the driver says of itself, where renderer.driver is Mesa's short name.
            const renderer::DriverIdentity& id = bridge_->egl().display().driver_identity();
            stats.set("renderer.gl_vendor", id.gl_vendor);
            stats.set("renderer.gl_renderer", id.gl_renderer);
            stats.set("renderer.gl_version", id.gl_version);
            stats.set("renderer.egl_device", id.device_driver.empty() ? std::string("-")
                                                                      : id.device_driver + " " + id.device_renderer);
        }
        stats.set("renderer.egl_started_by", bridge_->egl().started_by());
        stats.set("renderer.display_profile", display_profile_source_);
        const renderer::RendererStats r = bridge_->egl().stats();
        stats.set("buffers.shm_upload_bytes", r.shm_upload_bytes);
        stats.set("buffers.shm_gl_textures", r.shm_gl_textures);
        stats.set("buffers.dmabuf_imports", r.dmabuf_imports);
        stats.set("buffers.dmabuf_mapped", r.dmabuf_mapped);
        stats.set("buffers.dmabuf_reimports", bridge_->textures().dmabuf_reimports());
        stats.set("buffers.dmabuf_texture_reuses", bridge_->textures().dmabuf_texture_reuses());
        stats.set("buffers.dmabuf_rejected", r.dmabuf_rejected);
        stats.set("buffers.readback_bytes", r.readback_bytes);
        stats.set("buffers.cpu_render_targets", r.cpu_targets);
        stats.set("buffers.dmabuf_render_targets", r.dmabuf_targets);
        stats.set("renderer.linear_light_frames", r.linear_frames);
        stats.set("renderer.linear_light_targets", r.linear_targets);
    }
}

}  // namespace kiln::compositor
