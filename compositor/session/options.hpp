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
// automatic: fast where frames are drawn with GL; background where they are composed on the CPU, since no frame then
// waits for a program (the ones kept for GL frames are ready soon after the first frame).
enum class PrecompileMode { automatic, off, fast, background };
// How output frames are composed: auto composes on the CPU (pixman) where GL itself is software and a frame
// allows it (unscaled shm windows), with GL otherwise; gl always uses GL.
enum class CompositionMode { automatic, gl };
// Protocols that expose other clients' content or input, or change the whole session; --restrict hides one from
// clients kiln did not start.
enum class PrivilegedProtocol {
    screencopy,
    output_management,
    output_power,
    session_lock,
    input_method,
    gamma_control,
    export_dmabuf,
    input_inhibit,
    foreign_toplevel_list,
    data_control,
    image_copy_capture,  // ext-image-copy-capture and its two capture-source managers
};
// Their names, as --restrict and [security] restrict= take them.
inline constexpr const char* privileged_protocol_names =
    "screencopy, output-management, output-power, session-lock, input-method, gamma-control, export-dmabuf, input-inhibit, "
    "foreign-toplevel-list, data-control, image-copy-capture";
// The protocols kiln hides from every client that connected through a security context (a sandbox such as
// Flatpak), whatever --restrict says, by the names kiln.ini's [security] allow-sandboxed= grants them with: at least
// what sway's security filter hides. A new one is a name here and one PrivilegedGlobals::guard call where its global
// is made (workspaces and transient seats go here once kiln offers them).
inline constexpr std::string_view sandbox_hidden_protocols[] = {
    "screencopy", "export-dmabuf", "virtual-keyboard", "virtual-pointer", "input-method", "data-control",
    "output-management", "output-power", "gamma-control", "input-inhibit", "session-lock",
    "foreign-toplevel-management", "security-context", "ext-data-control", "ext-foreign-toplevel-list",
    "image-copy-capture", "drm-lease", "layer-shell", "keyboard-shortcuts-inhibit", "xdg-output", "ext-workspace",
};
// kiln.ini [security] allow-sandboxed=APP_ID:NAME,...: what a sandboxed app (by its security context's app id) may
// see of the protocols above.
struct SandboxGrant {
    std::string app_id;
    std::vector<std::string> protocols;
};
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
    int32_t backend_outputs = 1;        // --outputs: outputs the headless, nested Wayland or X11 backend creates
    std::string cache_dir;              // empty: $XDG_CACHE_HOME/kiln
    std::string system_cache_dir;       // empty: none
    PrecompileMode precompile = PrecompileMode::automatic;
    CompositionMode composition = CompositionMode::automatic;
    std::string stats_file;             // empty: no stats
    std::vector<PrivilegedProtocol> restricted;  // --restrict NAME, each once; empty: every client binds them
    std::vector<SandboxGrant> sandbox_grants;    // kiln.ini [security] allow-sandboxed, one per app id
    KeyboardSettings keyboard;          // kiln.ini [keyboard]
    std::vector<OutputSettings> outputs;  // kiln.ini [output NAME], one per name
    BackgroundSettings background;      // kiln.ini [background]
    BindingSettings bindings{.bindings = default_bindings()};  // kiln.ini [bindings]
    WorkspaceSettings workspaces;       // kiln.ini [workspaces]
    std::vector<WindowRule> rules;      // kiln.ini [rule] / [rule NAME], in the file's order
    InputSettings input;                // kiln.ini [input]: every device
    std::vector<InputSettings> inputs;  // kiln.ini [input NAME], one per name
    XwaylandMode xwayland = XwaylandMode::lazy;  // --xwayland, kiln.ini [xwayland] mode
    DecorationSettings decorations;     // kiln.ini [decorations]
    std::string bell_command;           // kiln.ini [bell] command: run when a client rings the bell; empty: none
    std::string config_file;            // --config FILE; empty: the XDG lookup (config.hpp)
    bool check_config = false;          // --check-config: report kiln.ini's problems and exit
    bool debug = false;
    bool full_redraw = false;           // every frame redraws the whole output, nothing culled: a reference image
    int debug_render_delay_ms = 0;      // for tests: a GL frame counts as finished no sooner than this after its start
    bool test_input = false;            // --test-input: offer kiln_test_input_v1 (headless only), for tests
    // Inside another program (compositor/embedded.hpp): no socket, no environment changes, no signal handlers, no
    // startup commands; the host adds clients by fd and drives input. Not a flag: only the embedding API sets it.
    bool embedded = false;
    bool help = false;
    bool version = false;

    bool restricts(PrivilegedProtocol protocol) const;
    // Whether kiln.ini lets the sandboxed app `app_id` see `protocol` (a name of sandbox_hidden_protocols).
    bool grants_sandboxed(std::string_view app_id, std::string_view protocol) const;
    const OutputSettings* output(const std::string& name) const;  // its [output NAME] section, or null
    // [input] with [input NAME]'s keys on top: what applies to the device of that name.
    InputSettings input_for(const std::string& device_name) const;
    // Takes what SIGHUP reloads from `options` (kiln.ini read again, flags on top): bindings, keyboard, [input],
    // outputs, background, decorations and the bell command; the rest stays as kiln started.
    void take_reloadable(const Options& options);
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
// "APP_ID:NAME,NAME": the grant, or nullopt with `error` saying what is wrong.
std::optional<SandboxGrant> parse_sandbox_grant(std::string_view value, std::string& error);

}  // namespace kiln::compositor
