// kiln's command line: what it accepts and how a bad flag is reported.
#pragma once

#include "compositor/session/settings.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::compositor {

enum class BackendChoice { automatic, drm, wayland, x11, headless };
enum class PrecompileMode { off, fast, background };
// Protocols that expose other clients' content; --restrict hides one from clients kiln did not start.
enum class PrivilegedProtocol { screencopy, gamma_control, export_dmabuf };
// When Xwayland runs: on the first X11 connection (lazy), at start-up (eager), or never (off: no DISPLAY).
enum class XwaylandMode { lazy, eager, off };

struct Options {
    BackendChoice backend = BackendChoice::automatic;
    std::string socket;                 // empty: libwayland picks wayland-N
    std::vector<std::string> startup;   // run with /bin/sh -c once the socket is up
    bool exit_with_startup = false;
    int32_t headless_width = 1920;
    int32_t headless_height = 1080;
    bool headless_size_given = false;   // --headless-size was on the command line: it wins over [output] mode
    std::string cache_dir;              // empty: $XDG_CACHE_HOME/kiln
    std::string system_cache_dir;       // empty: none
    PrecompileMode precompile = PrecompileMode::fast;
    std::string stats_file;             // empty: no stats
    std::vector<PrivilegedProtocol> restricted;  // --restrict NAME, each once; empty: every client binds them
    KeyboardSettings keyboard;          // kiln.ini [keyboard]
    std::vector<OutputSettings> outputs;  // kiln.ini [output NAME], one per name
    BackgroundSettings background;      // kiln.ini [background]
    XwaylandMode xwayland = XwaylandMode::lazy;  // --xwayland, kiln.ini [xwayland] mode
    std::string config_file;            // --config FILE; empty: the XDG lookup (config.hpp)
    bool check_config = false;          // --check-config: report kiln.ini's problems and exit
    bool debug = false;
    bool full_redraw = false;           // every frame redraws the whole output, nothing culled: a reference image
    bool help = false;
    bool version = false;

    bool restricts(PrivilegedProtocol protocol) const;
    const OutputSettings* output(const std::string& name) const;  // its [output NAME] section, or null
};

struct ParseResult {
    std::optional<Options> options;  // nullopt: `error` says why
    std::string error;
};

// Each flag alone, on top of `base` (kiln.ini's settings): flags win, -s and --restrict add to the file's.
ParseResult parse_flags(int argc, const char* const argv[], Options base = {});
// parse_flags, then the checks that look at flags together.
ParseResult parse_options(int argc, const char* const argv[], Options base = {});
std::string usage(const char* program);
const char* backend_name(BackendChoice backend);
const char* protocol_name(PrivilegedProtocol protocol);
std::optional<PrecompileMode> parse_precompile(std::string_view name);
std::optional<PrivilegedProtocol> parse_privileged(std::string_view name);
std::optional<XwaylandMode> parse_xwayland(std::string_view name);

}  // namespace kiln::compositor
