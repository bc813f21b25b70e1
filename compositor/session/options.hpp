// kiln's command line: what it accepts and how a bad flag is reported.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::compositor {

enum class BackendChoice { automatic, drm, wayland, x11, headless };
enum class PrecompileMode { off, fast, background };

struct Options {
    BackendChoice backend = BackendChoice::automatic;
    std::string socket;                 // empty: libwayland picks wayland-N
    std::vector<std::string> startup;   // run with /bin/sh -c once the socket is up
    bool exit_with_startup = false;
    int32_t headless_width = 1920;
    int32_t headless_height = 1080;
    std::string cache_dir;              // empty: $XDG_CACHE_HOME/kiln
    std::string system_cache_dir;       // empty: none
    PrecompileMode precompile = PrecompileMode::fast;
    std::string stats_file;             // empty: no stats
    bool debug = false;
    bool full_redraw = false;           // every frame redraws the whole output, nothing culled: a reference image
    bool help = false;
    bool version = false;
};

struct ParseResult {
    std::optional<Options> options;  // nullopt: `error` says why
    std::string error;
};

ParseResult parse_options(int argc, const char* const argv[]);
std::string usage(const char* program);
const char* backend_name(BackendChoice backend);

}  // namespace kiln::compositor
