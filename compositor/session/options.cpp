// Parses kiln's command line into Options; every mistake becomes a message for usage().
#include "compositor/session/options.hpp"

#include "compositor/session/config_values.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <string_view>

namespace kiln::compositor {
namespace {

// A whole decimal number and nothing else.
bool parse_count(std::string_view text, int32_t& count)
{
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
    return ec == std::errc{} && end == text.data() + text.size();
}

bool parse_size(std::string_view text, int32_t& width, int32_t& height)
{
    const auto x = text.find('x');
    if (x == std::string_view::npos)
        return false;
    int32_t w = 0;
    int32_t h = 0;
    const auto first = text.substr(0, x);
    const auto second = text.substr(x + 1);
    auto [end_w, ec_w] = std::from_chars(first.data(), first.data() + first.size(), w);
    auto [end_h, ec_h] = std::from_chars(second.data(), second.data() + second.size(), h);
    if (ec_w != std::errc{} || ec_h != std::errc{} || end_w != first.data() + first.size() ||
        end_h != second.data() + second.size())
        return false;
    if (w < 1 || h < 1 || w > 16384 || h > 16384)
        return false;
    width = w;
    height = h;
    return true;
}

std::optional<BackendChoice> parse_backend(std::string_view name)
{
    if (name == "auto")
        return BackendChoice::automatic;
    if (name == "drm")
        return BackendChoice::drm;
    if (name == "wayland")
        return BackendChoice::wayland;
    if (name == "x11")
        return BackendChoice::x11;
    if (name == "headless")
        return BackendChoice::headless;
    return std::nullopt;
}

}  // namespace

std::optional<PrecompileMode> parse_precompile(std::string_view name)
{
    if (name == "auto")
        return PrecompileMode::automatic;
    if (name == "off")
        return PrecompileMode::off;
    if (name == "fast")
        return PrecompileMode::fast;
    if (name == "background")
        return PrecompileMode::background;
    return std::nullopt;
}

std::optional<PrivilegedProtocol> parse_privileged(std::string_view name)
{
    if (name == "screencopy")
        return PrivilegedProtocol::screencopy;
    if (name == "output-management")
        return PrivilegedProtocol::output_management;
    if (name == "output-power")
        return PrivilegedProtocol::output_power;
    if (name == "session-lock")
        return PrivilegedProtocol::session_lock;
    if (name == "input-method")
        return PrivilegedProtocol::input_method;
    if (name == "gamma-control")
        return PrivilegedProtocol::gamma_control;
    if (name == "export-dmabuf")
        return PrivilegedProtocol::export_dmabuf;
    if (name == "input-inhibit")
        return PrivilegedProtocol::input_inhibit;
    if (name == "foreign-toplevel-list")
        return PrivilegedProtocol::foreign_toplevel_list;
    if (name == "data-control")
        return PrivilegedProtocol::data_control;
    if (name == "image-copy-capture")
        return PrivilegedProtocol::image_copy_capture;
    return std::nullopt;
}

std::optional<XwaylandMode> parse_xwayland(std::string_view name)
{
    if (name == "lazy")
        return XwaylandMode::lazy;
    if (name == "eager")
        return XwaylandMode::eager;
    if (name == "off")
        return XwaylandMode::off;
    return std::nullopt;
}

const OutputSettings* Options::output(const std::string& name) const
{
    for (const auto& settings : outputs)
        if (settings.name == name)
            return &settings;
    return nullptr;
}

InputSettings Options::input_for(const std::string& device_name) const
{
    InputSettings merged = input;
    merged.name = device_name;
    for (const auto& named : inputs) {
        if (named.name != device_name)
            continue;
        // Each key [input NAME] sets wins over [input]'s.
        auto over = [](auto& to, const auto& from) {
            if (from)
                to = from;
        };
        over(merged.tap, named.tap);
        over(merged.natural_scroll, named.natural_scroll);
        over(merged.left_handed, named.left_handed);
        over(merged.disable_while_typing, named.disable_while_typing);
        over(merged.accel_profile, named.accel_profile);
        over(merged.accel_speed, named.accel_speed);
    }
    return merged;
}

void Options::take_reloadable(const Options& options)
{
    keyboard = options.keyboard;
    bindings = options.bindings;
    input = options.input;
    inputs = options.inputs;
    background = options.background;
    outputs = options.outputs;
    decorations = options.decorations;
    bell_command = options.bell_command;
    rules = options.rules;  // read at each map: a reload applies to windows opened after it
}

bool Options::restricts(PrivilegedProtocol protocol) const
{
    return std::find(restricted.begin(), restricted.end(), protocol) != restricted.end();
}

bool Options::grants_sandboxed(std::string_view app_id, std::string_view protocol) const
{
    for (const auto& grant : sandbox_grants)
        if (grant.app_id == app_id)
            return std::find(grant.protocols.begin(), grant.protocols.end(), protocol) != grant.protocols.end();
    return false;
}

std::optional<SandboxGrant> parse_sandbox_grant(std::string_view value, std::string& error)
{
    const auto colon = value.find(':');
    if (colon == std::string_view::npos || colon == 0) {
        error = "APP_ID:PROTOCOL,... (the app id a sandbox engine names, a colon, then protocol names)";
        return std::nullopt;
    }
    SandboxGrant grant{.app_id = std::string(value.substr(0, colon)), .protocols = {}};
    std::string_view rest = value.substr(colon + 1);
    while (true) {
        const auto comma = rest.find(',');
        const std::string_view name = rest.substr(0, comma);
        if (std::find(std::begin(sandbox_hidden_protocols), std::end(sandbox_hidden_protocols), name) ==
            std::end(sandbox_hidden_protocols)) {
            error = "'" + std::string(name) + "' is not a protocol hidden from sandboxed clients (";
            for (std::string_view known : sandbox_hidden_protocols)
                error += std::string(known) + (known == std::end(sandbox_hidden_protocols)[-1] ? ")" : ", ");
            return std::nullopt;
        }
        if (std::find(grant.protocols.begin(), grant.protocols.end(), name) == grant.protocols.end())
            grant.protocols.emplace_back(name);
        if (comma == std::string_view::npos)
            break;
        rest = rest.substr(comma + 1);
    }
    return grant;
}

const char* protocol_name(PrivilegedProtocol protocol)
{
    switch (protocol) {
    case PrivilegedProtocol::screencopy: return "screencopy";
    case PrivilegedProtocol::output_management: return "output-management";
    case PrivilegedProtocol::output_power: return "output-power";
    case PrivilegedProtocol::session_lock: return "session-lock";
    case PrivilegedProtocol::input_method: return "input-method";
    case PrivilegedProtocol::gamma_control: return "gamma-control";
    case PrivilegedProtocol::export_dmabuf: return "export-dmabuf";
    case PrivilegedProtocol::input_inhibit: return "input-inhibit";
    case PrivilegedProtocol::foreign_toplevel_list: return "foreign-toplevel-list";
    case PrivilegedProtocol::data_control: return "data-control";
    case PrivilegedProtocol::image_copy_capture: return "image-copy-capture";
    }
    return "?";
}

const char* backend_name(BackendChoice backend)
{
    switch (backend) {
    case BackendChoice::automatic: return "auto";
    case BackendChoice::drm: return "drm";
    case BackendChoice::wayland: return "wayland";
    case BackendChoice::x11: return "x11";
    case BackendChoice::headless: return "headless";
    }
    return "?";
}

std::string usage(const char* program)
{
    std::string text = "Usage: ";
    text += program;
    text += R"( [options]
A Wayland compositor with a zero-copy buffer pipeline.

  -h, --help                 show this help and exit
  -v, --version              print the version and exit
  -b, --backend NAME         auto|drm|wayland|x11|headless (default auto: WAYLAND_DISPLAY -> wayland,
                             DISPLAY -> x11, a seat -> drm, else headless)
  -S, --socket NAME          listen on $XDG_RUNTIME_DIR/NAME (default: first free wayland-N)
  -s, --startup CMD          run CMD with /bin/sh -c once clients can connect (repeatable)
      --exit-with-startup    exit when every startup command has exited (status: the first failure, else 0)
      --headless-size WxH    size of the headless output (default 1920x1080; wins over kiln.ini's mode)
      --outputs N            outputs of the headless, nested Wayland or X11 backend (1..8, default 1),
                             named HEADLESS-1.., WL-1.., X11-1..; DRM has those plugged in
      --cache-dir DIR        program cache directory (default $XDG_CACHE_HOME/kiln)
      --system-cache DIR     read-only program cache tier, e.g. one shipped with an image
      --precompile MODE      auto|off|fast|background: load recorded programs before/after the first frame
                             (default auto: fast, or background while frames are composed on the CPU)
      --composition MODE     auto|gl: auto composes on the CPU (pixman) where GL is software (llvmpipe) and a
                             frame allows it, gl always draws with GL (default auto)
      --background 0xRRGGBB  what no window covers (default 0x202830, a dark slate blue; wins over kiln.ini)
      --stats FILE           write start-up, program, buffer and frame statistics as JSON on exit
      --restrict PROTOCOL    hide PROTOCOL (screencopy, output-management, output-power, session-lock,
                             input-method, gamma-control, export-dmabuf, input-inhibit, foreign-toplevel-list,
                             data-control, image-copy-capture) from clients kiln did not start with -s
                             (repeatable)
      --xwayland MODE        lazy|eager|off: start Xwayland on the first X11 connection (default), at start-up,
                             or never (then DISPLAY is not set for clients)
      --config FILE          read FILE instead of kiln.ini from $XDG_CONFIG_HOME/kiln or $XDG_CONFIG_DIRS/kiln;
                             flags win over the file, -s and --restrict add to its [startup] and [security]
      --check-config         report kiln.ini's problems and exit: 0 when it is clean, 1 when not
  -d, --debug                verbose wlroots logging
      --debug-full-redraw    redraw every output wholly each frame, blending everything, culling nothing
                             (slow: a reference to compare kiln's damage tracking and culling against)
      --debug-render-delay MS
                             for tests: a GL-composed frame counts as finished no sooner than MS (1-1000) after it
                             started, as if the GPU were that slow (drives render-ahead on a fast machine)
      --test-input           for tests: offer kiln_test_input_v1, through which any client drives the headless
                             touch device and tablet pen (headless backend only; never on a real session)

SIGHUP reads kiln.ini again: bindings, keyboard, inputs, outputs and background change, clients stay.
Default keys: Super+Return terminal, Super+Q close, Alt+Tab next window, Super+Shift+E quit; see kiln.ini(5).
)";
    return text;
}

ParseResult parse_flags(int argc, const char* const argv[], Options base)
{
    Options options = std::move(base);
    auto fail = [](std::string message) { return ParseResult{std::nullopt, std::move(message)}; };

    for (int i = 1; i < argc; ++i) {
        std::string_view arg = argv[i];
        std::string_view value;
        bool has_inline_value = false;
        if (arg.starts_with("--")) {
            if (auto eq = arg.find('='); eq != std::string_view::npos) {
                value = arg.substr(eq + 1);
                arg = arg.substr(0, eq);
                has_inline_value = true;
            }
        }
        // Fetches the flag's argument, inline (--flag=value) or as the next word.
        auto take_value = [&](std::string_view& out) -> bool {
            if (has_inline_value) {
                out = value;
                return true;
            }
            if (i + 1 >= argc)
                return false;
            out = argv[++i];
            return true;
        };
        auto reject_inline = [&]() { return has_inline_value; };

        std::string_view v;
        if (arg == "-h" || arg == "--help") {
            if (reject_inline())
                return fail(std::string(arg) + " takes no value");
            options.help = true;
        } else if (arg == "-v" || arg == "--version") {
            if (reject_inline())
                return fail(std::string(arg) + " takes no value");
            options.version = true;
        } else if (arg == "-d" || arg == "--debug") {
            if (reject_inline())
                return fail(std::string(arg) + " takes no value");
            options.debug = true;
        } else if (arg == "--exit-with-startup") {
            if (reject_inline())
                return fail(std::string(arg) + " takes no value");
            options.exit_with_startup = true;
        } else if (arg == "-b" || arg == "--backend") {
            if (!take_value(v))
                return fail(std::string(arg) + " needs a backend name");
            auto backend = parse_backend(v);
            if (!backend)
                return fail("unknown backend '" + std::string(v) + "' (auto, drm, wayland, x11 or headless)");
            options.backend = *backend;
        } else if (arg == "-S" || arg == "--socket") {
            if (!take_value(v) || v.empty())
                return fail(std::string(arg) + " needs a socket name");
            if (v.find('/') != std::string_view::npos)
                return fail("socket name '" + std::string(v) + "' must not contain '/'");
            options.socket = v;
        } else if (arg == "-s" || arg == "--startup") {
            if (!take_value(v) || v.empty())
                return fail(std::string(arg) + " needs a command");
            options.startup.emplace_back(v);
        } else if (arg == "--headless-size") {
            if (!take_value(v) || !parse_size(v, options.headless_width, options.headless_height))
                return fail("--headless-size needs WIDTHxHEIGHT, each 1..16384");
            options.headless_size_given = true;
        } else if (arg == "--outputs") {
            int32_t count = 0;
            if (!take_value(v) || !parse_count(v, count) || count < 1 || count > 8)
                return fail("--outputs needs a number from 1 to 8");
            options.backend_outputs = count;
        } else if (arg == "--cache-dir") {
            if (!take_value(v) || v.empty())
                return fail("--cache-dir needs a directory");
            options.cache_dir = v;
        } else if (arg == "--system-cache") {
            if (!take_value(v) || v.empty())
                return fail("--system-cache needs a directory");
            options.system_cache_dir = v;
        } else if (arg == "--precompile") {
            if (!take_value(v))
                return fail("--precompile needs auto, off, fast or background");
            auto mode = parse_precompile(v);
            if (!mode)
                return fail("unknown precompile mode '" + std::string(v) + "' (auto, off, fast or background)");
            options.precompile = *mode;
        } else if (arg == "--composition") {
            if (!take_value(v))
                return fail("--composition needs auto or gl");
            if (v == "auto")
                options.composition = CompositionMode::automatic;
            else if (v == "gl")
                options.composition = CompositionMode::gl;
            else
                return fail("unknown composition mode '" + std::string(v) + "' (auto or gl)");
        } else if (arg == "--background") {
            std::optional<uint32_t> rgb;
            if (!take_value(v) || !(rgb = ini::parse_rgb(v)))
                return fail("--background needs a colour as 0xRRGGBB, e.g. 0x336699");
            options.background.rgb = *rgb;
        } else if (arg == "--debug-full-redraw") {
            options.full_redraw = true;
        } else if (arg == "--debug-render-delay") {
            int ms = 0;
            const char* last = take_value(v) ? v.data() + v.size() : nullptr;
            if (!last || std::from_chars(v.data(), last, ms).ptr != last || ms < 1 || ms > 1000)
                return fail("--debug-render-delay needs milliseconds from 1 to 1000");
            options.debug_render_delay_ms = ms;
        } else if (arg == "--test-input") {
            if (reject_inline())
                return fail(std::string(arg) + " takes no value");
            options.test_input = true;
        } else if (arg == "--stats") {
            if (!take_value(v) || v.empty())
                return fail("--stats needs a file name");
            options.stats_file = v;
        } else if (arg == "--restrict") {
            if (!take_value(v))
                return fail(std::string("--restrict needs a protocol name (") + privileged_protocol_names + ")");
            auto protocol = parse_privileged(v);
            if (!protocol)
                return fail("unknown protocol '" + std::string(v) + "' for --restrict (" + privileged_protocol_names +
                            ")");
            if (!options.restricts(*protocol))
                options.restricted.push_back(*protocol);
        } else if (arg == "--xwayland") {
            if (!take_value(v))
                return fail("--xwayland needs lazy, eager or off");
            auto mode = parse_xwayland(v);
            if (!mode)
                return fail("unknown Xwayland mode '" + std::string(v) + "' (lazy, eager or off)");
            options.xwayland = *mode;
        } else if (arg == "--config") {
            if (!take_value(v) || v.empty())
                return fail("--config needs a file name");
            options.config_file = v;
        } else if (arg == "--check-config") {
            if (reject_inline())
                return fail(std::string(arg) + " takes no value");
            options.check_config = true;
        } else {
            return fail("unknown option '" + std::string(argv[i]) + "'");
        }
    }
    return ParseResult{std::move(options), {}};
}

ParseResult parse_options(int argc, const char* const argv[], Options base)
{
    ParseResult result = parse_flags(argc, argv, std::move(base));
    if (!result.options)
        return result;
    const Options& options = *result.options;
    auto fail = [](std::string message) { return ParseResult{std::nullopt, std::move(message)}; };
    if (options.exit_with_startup && options.startup.empty())
        return fail("--exit-with-startup needs at least one --startup command (or [startup] command= in kiln.ini)");
    return result;
}

}  // namespace kiln::compositor
