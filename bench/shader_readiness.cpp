// kiln-bench-shader-readiness: how long until every renderer program is linked and has drawn once, through the
// program cache in a given directory. Run it twice on one directory for cold vs warm; prints one JSON line.
#include "renderer/cache/tiered_program_cache.hpp"
#include "renderer/egl_display.hpp"
#include "renderer/renderer.hpp"

#include <chrono>
#include <cstdio>
#include <string>

int main(int argc, char** argv)
{
    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s CACHE_DIR\n", argv[0]);
        return 2;
    }
    const auto t0 = Clock::now();
    std::string error;
    auto display = kiln::renderer::EglDisplay::open({}, error);
    if (!display) {
        std::fprintf(stderr, "no EGL display: %s\n", error.c_str());
        return 77;
    }
    const auto t_egl = Clock::now();
    kiln::cache::CacheOptions options;
    options.user_dir = argv[1];
    options.log = [](const std::string&) {};
    kiln::cache::TieredProgramCache cache(options);
    auto renderer = kiln::renderer::Renderer::create(*display, cache, error);
    if (!renderer) {
        std::fprintf(stderr, "no renderer: %s\n", error.c_str());
        return 1;
    }
    const auto t_ready = Clock::now();
    std::string per_program;
    for (auto variant : renderer->variants()) {
        const auto start = Clock::now();
        if (!renderer->prepare(variant, error)) {
            std::fprintf(stderr, "prepare failed: %s\n", error.c_str());
            return 1;
        }
        char item[96];
        std::snprintf(item, sizeof item, "%s\"%s\": %.3f", per_program.empty() ? "" : ", ",
                      kiln::renderer::shader_source(variant).name.c_str(), ms(start, Clock::now()));
        per_program += item;
    }
    const auto t_done = Clock::now();
    cache.flush();
    const auto& s = cache.stats();
    std::printf("{\"egl_ms\": %.3f, \"programs_ms\": %.3f, \"total_ms\": %.3f, \"linked_from_source\": %llu, "
                "\"loaded_from_disk\": %llu, \"blob_hits\": %llu, \"blob_misses\": %llu, \"per_program_ms\": {%s}}\n",
                ms(t0, t_egl), ms(t_ready, t_done), ms(t0, t_done),
                static_cast<unsigned long long>(s.linked_from_source), static_cast<unsigned long long>(s.loaded_from_disk),
                static_cast<unsigned long long>(s.blob_hits), static_cast<unsigned long long>(s.blob_misses),
                per_program.c_str());
    return 0;
}
