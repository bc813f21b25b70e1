// Reads kiln.ini (weston.ini's syntax: [section], [output NAME], key=value, # comments) into Options.
#include "compositor/session/config.hpp"

#include "compositor/input/key_combo.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

namespace kiln::compositor {
namespace {

std::string_view trim(std::string_view text)
{
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos)
        return {};
    const auto last = text.find_last_not_of(" \t\r");
    return text.substr(first, last - first + 1);
}

// A whole decimal integer in [low, high]; a sign only where low is negative.
std::optional<int32_t> parse_int(std::string_view text, int32_t low, int32_t high)
{
    if (text.starts_with('+'))
        return std::nullopt;
    int32_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || value < low || value > high)
        return std::nullopt;
    return value;
}

// An output scale: a decimal from 0.25 to 10 (1, 1.5, 1.25, 1.75, 2), kept as a whole number of 120ths, the unit
// wp_fractional_scale_v1 tells clients, so what a client is told is exactly what kiln draws at.
std::optional<double> parse_scale(std::string_view text)
{
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
    if (ec != std::errc{} || end != text.data() + text.size() || !(value >= 0.25 && value <= 10.0))
        return std::nullopt;
    return std::round(value * 120.0) / 120.0;
}

std::optional<OutputMode> parse_mode(std::string_view text)
{
    OutputMode mode;
    std::string_view size = text;
    if (const auto at = text.find('@'); at != std::string_view::npos) {
        size = text.substr(0, at);
        const std::string_view rate = text.substr(at + 1);
        // Hz, whole or with up to three decimals (59.94); kept in mHz as wlroots does.
        const auto dot = rate.find('.');
        auto hz = parse_int(rate.substr(0, dot), 1, 1000);
        if (!hz)
            return std::nullopt;
        int32_t mhz = *hz * 1000;
        if (dot != std::string_view::npos) {
            const std::string_view fraction = rate.substr(dot + 1);
            if (fraction.empty() || fraction.size() > 3 ||
                !std::all_of(fraction.begin(), fraction.end(), [](char c) { return c >= '0' && c <= '9'; }))
                return std::nullopt;
            int32_t thousandths = 0;
            for (size_t i = 0; i < 3; ++i)
                thousandths = thousandths * 10 + (i < fraction.size() ? fraction[i] - '0' : 0);
            mhz += thousandths;
        }
        mode.refresh_mhz = mhz;
    }
    const auto x = size.find('x');
    if (x == std::string_view::npos)
        return std::nullopt;
    auto width = parse_int(size.substr(0, x), 1, 16384);
    auto height = parse_int(size.substr(x + 1), 1, 16384);
    if (!width || !height)
        return std::nullopt;
    mode.width = *width;
    mode.height = *height;
    return mode;
}

std::optional<OutputTransform> parse_transform(std::string_view text)
{
    // weston.ini's older names (90, flipped-90) and its newer ones (rotate-90, flipped-rotate-90).
    static const std::pair<std::string_view, OutputTransform> names[] = {
        {"normal", OutputTransform::normal},
        {"90", OutputTransform::rotate_90},
        {"rotate-90", OutputTransform::rotate_90},
        {"180", OutputTransform::rotate_180},
        {"rotate-180", OutputTransform::rotate_180},
        {"270", OutputTransform::rotate_270},
        {"rotate-270", OutputTransform::rotate_270},
        {"flipped", OutputTransform::flipped},
        {"flipped-90", OutputTransform::flipped_90},
        {"flipped-rotate-90", OutputTransform::flipped_90},
        {"flipped-180", OutputTransform::flipped_180},
        {"flipped-rotate-180", OutputTransform::flipped_180},
        {"flipped-270", OutputTransform::flipped_270},
        {"flipped-rotate-270", OutputTransform::flipped_270},
    };
    for (const auto& [name, transform] : names)
        if (text == name)
            return transform;
    return std::nullopt;
}

std::optional<OutputPosition> parse_position(std::string_view text)
{
    const auto comma = text.find(',');
    if (comma == std::string_view::npos)
        return std::nullopt;
    auto x = parse_int(trim(text.substr(0, comma)), -65536, 65536);
    auto y = parse_int(trim(text.substr(comma + 1)), -65536, 65536);
    if (!x || !y)
        return std::nullopt;
    return OutputPosition{*x, *y};
}

std::optional<bool> parse_bool(std::string_view text)
{
    if (text == "true")
        return true;
    if (text == "false")
        return false;
    return std::nullopt;
}

std::optional<uint32_t> parse_rgb(std::string_view text)
{
    if (!text.starts_with("0x") && !text.starts_with("0X"))
        return std::nullopt;
    const std::string_view digits = text.substr(2);
    if (digits.size() != 6)
        return std::nullopt;
    uint32_t value = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
    if (ec != std::errc{} || end != digits.data() + digits.size())
        return std::nullopt;
    return value;
}

// What a key's value lands in besides Options: its [output NAME] or [input (NAME)] entry, and its line.
struct Entry {
    OutputSettings* output = nullptr;
    InputSettings* input = nullptr;
    int line = 0;
};

// What a key does with its value: nullopt when applied, else what it accepts (for the message).
using KeyHandler = std::function<std::optional<std::string>(std::string_view value, Options& options, Entry entry)>;

struct KeySpec {
    std::string_view name;
    bool repeatable;  // may appear more than once, each adding one (like a repeated flag)
    KeyHandler apply;
};

KeyHandler text_key(std::string KeyboardSettings::*field)
{
    return [field](std::string_view value, Options& options, Entry) -> std::optional<std::string> {
        options.keyboard.*field = value;
        return std::nullopt;
    };
}

const std::vector<KeySpec>& keyboard_keys()
{
    static const std::vector<KeySpec> keys = {
        {"keymap_rules", false, text_key(&KeyboardSettings::rules)},
        {"keymap_model", false, text_key(&KeyboardSettings::model)},
        {"keymap_layout", false, text_key(&KeyboardSettings::layout)},
        {"keymap_variant", false, text_key(&KeyboardSettings::variant)},
        {"keymap_options", false, text_key(&KeyboardSettings::options)},
        {"repeat-rate", false,
         [](std::string_view value, Options& options, Entry) -> std::optional<std::string> {
             auto rate = parse_int(value, 0, 1000);
             if (!rate)
                 return "keys per second, 0 (no repeat) to 1000";
             options.keyboard.repeat_rate = *rate;
             return std::nullopt;
         }},
        {"repeat-delay", false,
         [](std::string_view value, Options& options, Entry) -> std::optional<std::string> {
             auto delay = parse_int(value, 0, 10000);
             if (!delay)
                 return "milliseconds, 0 to 10000";
             options.keyboard.repeat_delay = *delay;
             return std::nullopt;
         }},
    };
    return keys;
}

const std::vector<KeySpec>& output_keys()
{
    static const std::vector<KeySpec> keys = {
        {"mode", false,
         [](std::string_view value, Options&, Entry entry) -> std::optional<std::string> {
             auto mode = parse_mode(value);
             if (!mode)
                 return "WIDTHxHEIGHT or WIDTHxHEIGHT@HZ, e.g. 1920x1080 or 2560x1440@59.95";
             entry.output->mode = *mode;
             return std::nullopt;
         }},
        {"scale", false,
         [](std::string_view value, Options&, Entry entry) -> std::optional<std::string> {
             auto scale = parse_scale(value);
             if (!scale)
                 return "a number from 0.25 to 10, e.g. 1, 1.5 or 2";
             entry.output->scale = *scale;
             return std::nullopt;
         }},
        {"transform", false,
         [](std::string_view value, Options&, Entry entry) -> std::optional<std::string> {
             auto transform = parse_transform(value);
             if (!transform)
                 return "normal, 90, 180, 270, flipped, flipped-90, flipped-180 or flipped-270 "
                        "(rotate-90 and flipped-rotate-90 spellings too)";
             entry.output->transform = *transform;
             return std::nullopt;
         }},
        {"position", false,
         [](std::string_view value, Options&, Entry entry) -> std::optional<std::string> {
             auto position = parse_position(value);
             if (!position)
                 return "X,Y in layout pixels, e.g. 1920,0";
             entry.output->position = *position;
             return std::nullopt;
         }},
        {"enabled", false,
         [](std::string_view value, Options&, Entry entry) -> std::optional<std::string> {
             auto enabled = parse_bool(value);
             if (!enabled)
                 return "true or false";
             entry.output->enabled = *enabled;
             return std::nullopt;
         }},
        {"lease", false,
         [](std::string_view value, Options&, Entry entry) -> std::optional<std::string> {
             auto lease = parse_bool(value);
             if (!lease)
                 return "true or false";
             entry.output->lease = *lease;
             return std::nullopt;
         }},
    };
    return keys;
}

const std::vector<KeySpec>& startup_keys()
{
    static const std::vector<KeySpec> keys = {
        {"command", true,
         [](std::string_view value, Options& options, Entry) -> std::optional<std::string> {
             if (value.empty())
                 return "a shell command";
             options.startup.emplace_back(value);
             return std::nullopt;
         }},
    };
    return keys;
}

const std::vector<KeySpec>& background_keys()
{
    static const std::vector<KeySpec> keys = {
        {"color", false,
         [](std::string_view value, Options& options, Entry) -> std::optional<std::string> {
             auto rgb = parse_rgb(value);
             if (!rgb)
                 return "0xRRGGBB, e.g. 0x336699";
             options.background.rgb = *rgb;
             return std::nullopt;
         }},
    };
    return keys;
}

const std::vector<KeySpec>& cache_keys()
{
    static const std::vector<KeySpec> keys = {
        {"directory", false,
         [](std::string_view value, Options& options, Entry) -> std::optional<std::string> {
             if (value.empty())
                 return "a directory";
             options.cache_dir = value;
             return std::nullopt;
         }},
        {"precompile", false,
         [](std::string_view value, Options& options, Entry) -> std::optional<std::string> {
             auto mode = parse_precompile(value);
             if (!mode)
                 return "auto, off, fast or background";
             options.precompile = *mode;
             return std::nullopt;
         }},
    };
    return keys;
}

const std::vector<KeySpec>& security_keys()
{
    static const std::vector<KeySpec> keys = {
        {"restrict", true,
         [](std::string_view value, Options& options, Entry) -> std::optional<std::string> {
             auto protocol = parse_privileged(value);
             if (!protocol)
                 return std::string("a protocol name: ") + privileged_protocol_names;
             if (!options.restricts(*protocol))
                 options.restricted.push_back(*protocol);
             return std::nullopt;
         }},
        {"allow-sandboxed", true,
         [](std::string_view value, Options& options, Entry) -> std::optional<std::string> {
             std::string error;
             auto grant = parse_sandbox_grant(value, error);
             if (!grant)
                 return error;
             // A second line for the same app adds to the first.
             for (auto& known : options.sandbox_grants) {
                 if (known.app_id != grant->app_id)
                     continue;
                 for (auto& name : grant->protocols)
                     if (std::find(known.protocols.begin(), known.protocols.end(), name) == known.protocols.end())
                         known.protocols.push_back(name);
                 return std::nullopt;
             }
             options.sandbox_grants.push_back(std::move(*grant));
             return std::nullopt;
         }},
    };
    return keys;
}

// Whitespace-separated words of a value.
std::vector<std::string_view> words(std::string_view text)
{
    std::vector<std::string_view> out;
    size_t start = 0;
    while ((start = text.find_first_not_of(" \t", start)) != std::string_view::npos) {
        const size_t end = std::min(text.find_first_of(" \t", start), text.size());
        out.push_back(text.substr(start, end - start));
        start = end;
    }
    return out;
}

// Adds `added` (all set on one line) unless one of them is a combination another line already bound: then
// nothing changes and the answer says which. A combination one of kiln's defaults uses is taken from the default.
std::optional<std::string> bind(Options& options, BindingAction action, std::vector<Binding> added)
{
    auto& bindings = options.bindings.bindings;
    for (const Binding& binding : added)
        for (const Binding& other : bindings)
            if (other.line != 0 && other.combo == binding.combo)
                return "a combination no other line binds (" + describe(binding.combo) + " is bound on line " +
                       std::to_string(other.line) + ")";
    std::erase_if(bindings, [&](const Binding& old) {
        if (old.line != 0)
            return false;
        if (old.action == action && action != BindingAction::command)
            return true;  // this key replaces the action's defaults
        return std::any_of(added.begin(), added.end(), [&](const Binding& b) { return b.combo == old.combo; });
    });
    bindings.insert(bindings.end(), added.begin(), added.end());
    return std::nullopt;
}

KeyHandler action_key(BindingAction action)
{
    return [action](std::string_view value, Options& options, Entry entry) -> std::optional<std::string> {
        const char* accepted = "key combinations separated by spaces, e.g. Super+Q or Alt+Tab Super+Tab, or none";
        std::vector<Binding> added;
        const auto list = words(value);
        if (list.empty())
            return accepted;
        if (!(list.size() == 1 && list[0] == "none")) {
            for (std::string_view word : list) {
                std::string error;
                auto combo = parse_key_combo(word, error);
                if (!combo)
                    return std::string(accepted) + " (" + error + ")";
                added.push_back(Binding{.combo = *combo, .action = action, .line = entry.line});
            }
        }
        return bind(options, action, std::move(added));
    };
}

const std::vector<KeySpec>& bindings_keys()
{
    static const std::vector<KeySpec> keys = {
        {"terminal", false,
         [](std::string_view value, Options& options, Entry) -> std::optional<std::string> {
             if (value.empty())
                 return "a shell command, e.g. foot";
             options.bindings.terminal = value;
             return std::nullopt;
         }},
        {"open-terminal", false, action_key(BindingAction::open_terminal)},
        {"close", false, action_key(BindingAction::close)},
        {"focus-next", false, action_key(BindingAction::focus_next)},
        {"fullscreen", false, action_key(BindingAction::fullscreen)},
        {"maximize", false, action_key(BindingAction::maximize)},
        {"quit", false, action_key(BindingAction::quit)},
        {"switch-vt", false,
         [](std::string_view value, Options& options, Entry entry) -> std::optional<std::string> {
             const char* accepted = "modifiers that with F1..F12 switch VT, e.g. Ctrl+Alt, or none";
             std::vector<Binding> added;
             if (value != "none") {
                 std::string error;
                 // The modifiers with a key of F1, so the combo parser checks them.
                 auto combo = parse_key_combo(std::string(value) + "+F1", error);
                 if (!combo || value.empty())
                     return std::string(accepted) + (error.empty() ? "" : " (" + error + ")");
                 for (uint32_t vt = 1; vt <= 12; ++vt)
                     added.push_back(Binding{.combo = {combo->modifiers, combo->keysym + vt - 1},
                                             .action = BindingAction::switch_vt,
                                             .vt = static_cast<int>(vt),
                                             .line = entry.line});
             }
             return bind(options, BindingAction::switch_vt, std::move(added));
         }},
        {"command", true,
         [](std::string_view value, Options& options, Entry entry) -> std::optional<std::string> {
             const char* accepted = "a key combination and a shell command, e.g. Super+D fuzzel";
             const size_t space = value.find_first_of(" \t");
             if (space == std::string_view::npos || trim(value.substr(space)).empty())
                 return accepted;
             std::string error;
             auto combo = parse_key_combo(value.substr(0, space), error);
             if (!combo)
                 return std::string(accepted) + " (" + error + ")";
             return bind(options, BindingAction::command,
                         {Binding{.combo = *combo,
                                  .action = BindingAction::command,
                                  .command = std::string(trim(value.substr(space))),
                                  .line = entry.line}});
         }},
    };
    return keys;
}

KeyHandler input_bool(std::optional<bool> InputSettings::*field)
{
    return [field](std::string_view value, Options&, Entry entry) -> std::optional<std::string> {
        auto flag = parse_bool(value);
        if (!flag)
            return "true or false";
        entry.input->*field = *flag;
        return std::nullopt;
    };
}

const std::vector<KeySpec>& input_keys()
{
    static const std::vector<KeySpec> keys = {
        {"enable-tap", false, input_bool(&InputSettings::tap)},
        {"natural-scroll", false, input_bool(&InputSettings::natural_scroll)},
        {"left-handed", false, input_bool(&InputSettings::left_handed)},
        {"disable-while-typing", false, input_bool(&InputSettings::disable_while_typing)},
        {"accel-profile", false,
         [](std::string_view value, Options&, Entry entry) -> std::optional<std::string> {
             if (value == "flat")
                 entry.input->accel_profile = AccelProfile::flat;
             else if (value == "adaptive")
                 entry.input->accel_profile = AccelProfile::adaptive;
             else
                 return "flat or adaptive";
             return std::nullopt;
         }},
        {"accel-speed", false,
         [](std::string_view value, Options&, Entry entry) -> std::optional<std::string> {
             double speed = 0;
             auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), speed);
             if (value.empty() || ec != std::errc{} || end != value.data() + value.size() || speed < -1 || speed > 1)
                 return "a number from -1 (slowest) to 1 (fastest), e.g. 0.3";
             entry.input->accel_speed = speed;
             return std::nullopt;
         }},
    };
    return keys;
}

const std::vector<KeySpec>& xwayland_keys()
{
    static const std::vector<KeySpec> keys = {
        {"mode", false,
         [](std::string_view value, Options& options, Entry) -> std::optional<std::string> {
             auto mode = parse_xwayland(value);
             if (!mode)
                 return "lazy, eager or off";
             options.xwayland = *mode;
             return std::nullopt;
         }},
    };
    return keys;
}

const std::vector<KeySpec>& bell_keys()
{
    static const std::vector<KeySpec> keys = {
        {"command", false,
         [](std::string_view value, Options& options, Entry) -> std::optional<std::string> {
             if (value.empty())
                 return "a shell command, e.g. paplay /usr/share/sounds/freedesktop/stereo/bell.oga";
             options.bell_command = value;
             return std::nullopt;
         }},
    };
    return keys;
}

const std::vector<KeySpec>& decorations_keys()
{
    static const std::vector<KeySpec> keys = {
        {"mode", false,
         [](std::string_view value, Options& options, Entry) -> std::optional<std::string> {
             if (value == "client")
                 options.decorations.mode = DecorationMode::client;
             else if (value == "server")
                 options.decorations.mode = DecorationMode::server;
             else if (value == "client-preferred")
                 options.decorations.mode = DecorationMode::client_preferred;
             else
                 return "client, server or client-preferred";
             return std::nullopt;
         }},
    };
    return keys;
}

struct SectionSpec {
    std::string_view name;
    const std::vector<KeySpec>& (*keys)();
};

const SectionSpec sections[] = {
    {"keyboard", keyboard_keys}, {"output", output_keys},   {"startup", startup_keys},
    {"background", background_keys}, {"cache", cache_keys}, {"security", security_keys},
    {"bindings", bindings_keys}, {"input", input_keys},
    {"xwayland", xwayland_keys}, {"decorations", decorations_keys}, {"bell", bell_keys},
};

std::string key_names(const std::vector<KeySpec>& keys)
{
    std::string names;
    for (const auto& key : keys)
        names += (names.empty() ? "" : ", ") + std::string(key.name);
    return names;
}

// The section the parser is in: its keys, its [output NAME] entry, and the keys it has had (for duplicates).
struct Section {
    std::string title;  // as written in messages: [keyboard], [output DP-1]
    const std::vector<KeySpec>* keys = nullptr;  // null: no section yet, or an unknown one (already reported)
    std::string output_name;                     // [output NAME] only
    bool input = false;                          // [input] or [input NAME]
    std::string input_name;                      // [input NAME] only
};

}  // namespace

std::string describe(const ConfigProblem& problem)
{
    if (problem.line == 0)
        return problem.file + ": " + problem.reason;
    return problem.file + ":" + std::to_string(problem.line) + ": " + problem.reason;
}

void apply_config_text(std::string_view text, const std::string& file, Options& options,
                       std::vector<ConfigProblem>& problems)
{
    Section section;
    bool in_unknown_section = false;
    std::map<std::string, int> first_seen;  // "[title] key" -> line, for duplicates
    int line_number = 0;
    auto report = [&](std::string reason) { problems.push_back({file, line_number, std::move(reason)}); };

    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = std::min(text.find('\n', start), text.size());
        const std::string_view line = trim(text.substr(start, end - start));
        start = end + 1;
        ++line_number;
        if (line.empty() || line.starts_with('#')) {
            if (end == text.size())
                break;
            continue;
        }

        if (line.starts_with('[')) {
            section = Section{};
            in_unknown_section = false;
            if (!line.ends_with(']')) {
                report("a section header needs a closing ']': " + std::string(line));
                in_unknown_section = true;  // its keys would land in the wrong place: ignore them quietly
                continue;
            }
            const std::string_view inside = trim(line.substr(1, line.size() - 2));
            const auto space = inside.find_first_of(" \t");
            const std::string_view name = inside.substr(0, space);
            const std::string_view argument = space == std::string_view::npos ? "" : trim(inside.substr(space));
            const SectionSpec* spec = nullptr;
            for (const auto& candidate : sections)
                if (candidate.name == name)
                    spec = &candidate;
            if (!spec) {
                report("unknown section [" + std::string(inside) +
                       "] (keyboard, output NAME, input, input NAME, bindings, startup, background, cache, "
                       "security or xwayland); its keys are ignored");
                in_unknown_section = true;
                continue;
            }
            if (name == "output" && argument.empty()) {
                report("[output] needs the output's name, e.g. [output HDMI-A-1]; its keys are ignored");
                in_unknown_section = true;
                continue;
            }
            if (name != "output" && name != "input" && !argument.empty()) {
                report("[" + std::string(name) + "] takes no name; its keys are ignored");
                in_unknown_section = true;
                continue;
            }
            section.title = "[" + std::string(name) + (argument.empty() ? "" : " " + std::string(argument)) + "]";
            section.keys = &spec->keys();
            if (name == "input") {
                section.input = true;
                section.input_name = argument;
                if (!argument.empty() &&
                    std::none_of(options.inputs.begin(), options.inputs.end(),
                                 [&](const InputSettings& input) { return input.name == section.input_name; }))
                    options.inputs.push_back(InputSettings{.name = section.input_name});
                continue;
            }
            section.output_name = argument;
            if (!argument.empty() && !options.output(section.output_name))
                options.outputs.push_back(OutputSettings{.name = section.output_name});
            continue;
        }

        const auto eq = line.find('=');
        if (eq == std::string_view::npos) {
            report("neither a [section] nor key=value: " + std::string(line));
            continue;
        }
        const std::string key(trim(line.substr(0, eq)));
        const std::string_view value = trim(line.substr(eq + 1));
        if (in_unknown_section)
            continue;
        if (!section.keys) {
            report("'" + key + "' is outside any section; put it under one, e.g. [keyboard]");
            continue;
        }
        const KeySpec* spec = nullptr;
        for (const auto& candidate : *section.keys)
            if (candidate.name == key)
                spec = &candidate;
        if (!spec) {
            report("unknown key '" + key + "' in " + section.title + " (" + key_names(*section.keys) + ")");
            continue;
        }
        if (!spec->repeatable) {
            auto [seen, inserted] = first_seen.emplace(section.title + " " + key, line_number);
            if (!inserted) {
                report("duplicate key '" + key + "' in " + section.title + " (first set on line " +
                       std::to_string(seen->second) + ", which applies)");
                continue;
            }
        }
        Entry entry{.line = line_number};
        if (!section.output_name.empty())
            for (auto& candidate : options.outputs)
                if (candidate.name == section.output_name)
                    entry.output = &candidate;
        if (section.input) {
            entry.input = &options.input;
            if (!section.input_name.empty())
                for (auto& candidate : options.inputs)
                    if (candidate.name == section.input_name)
                        entry.input = &candidate;
        }
        if (auto accepted = spec->apply(value, options, entry))
            report("bad value '" + std::string(value) + "' for " + key + " in " + section.title + ": expected " +
                   *accepted);
    }
}

void apply_config_file(const std::filesystem::path& path, Options& options, std::vector<ConfigProblem>& problems)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        problems.push_back({path.string(), 0, "is a directory, not a file"});
        return;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        problems.push_back({path.string(), 0, std::string("cannot read: ") + std::strerror(errno)});
        return;
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) {
        problems.push_back({path.string(), 0, std::string("cannot read: ") + std::strerror(errno)});
        return;
    }
    const std::string content = text.str();
    // Text never holds a NUL byte: a binary file (an image or random bytes saved by mistake) is one problem, not a
    // warning for each of its thousand "lines".
    if (const size_t nul = content.find('\0'); nul != std::string::npos) {
        problems.push_back({path.string(), 0, "not a text file (a NUL byte at offset " + std::to_string(nul) + ")"});
        return;
    }
    apply_config_text(content, path.string(), options, problems);
}

std::vector<std::filesystem::path> config_candidates(const EnvLookup& getenv)
{
    std::vector<std::filesystem::path> candidates;
    const char* config_home = getenv("XDG_CONFIG_HOME");
    const char* home = getenv("HOME");
    // The base directory spec: relative paths in these variables are invalid and ignored.
    if (config_home && config_home[0] == '/')
        candidates.push_back(std::filesystem::path(config_home) / "kiln" / "kiln.ini");
    else if (home && home[0] == '/')
        candidates.push_back(std::filesystem::path(home) / ".config" / "kiln" / "kiln.ini");
    const char* dirs = getenv("XDG_CONFIG_DIRS");
    const std::string_view list = dirs && dirs[0] ? dirs : "/etc/xdg";
    size_t start = 0;
    while (start <= list.size()) {
        const size_t end = std::min(list.find(':', start), list.size());
        const std::string_view dir = list.substr(start, end - start);
        if (dir.starts_with('/'))
            candidates.push_back(std::filesystem::path(dir) / "kiln" / "kiln.ini");
        start = end + 1;
    }
    return candidates;
}

std::optional<std::filesystem::path> find_config(const EnvLookup& getenv)
{
    for (const auto& candidate : config_candidates(getenv)) {
        std::error_code ec;
        if (std::filesystem::exists(candidate, ec))
            return candidate;
    }
    return std::nullopt;
}

}  // namespace kiln::compositor
