// kiln.ini's sections and keys: for each key, how its value is checked and where it lands in Options.
#include "compositor/session/config_keys.hpp"

#include "compositor/session/icc_output_profile.hpp"

#include "compositor/session/config_values.hpp"
#include "compositor/session/key_combo.hpp"

#include <xkbcommon/xkbcommon.h>

#include <algorithm>
#include <charconv>
#include <system_error>

namespace kiln::compositor::ini {
namespace {

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

// Workspace names separated by commas (so a name may hold spaces: "web, mail, 3 chat"), each once, at most 99;
// `names` is set only when they are.
std::optional<std::string> parse_workspace_names(std::string_view value, std::vector<std::string>& names_out)
{
    std::vector<std::string> names;
    for (size_t start = 0; start <= value.size();) {
        size_t comma = value.find(',', start);
        if (comma == std::string_view::npos)
            comma = value.size();
        const std::string_view name = trim(value.substr(start, comma - start));
        if (name.empty())
            return "names separated by commas, e.g. web, mail, code";
        if (std::find(names.begin(), names.end(), name) != names.end())
            return "names separated by commas, each once ('" + std::string(name) + "' twice)";
        names.emplace_back(name);
        start = comma + 1;
    }
    if (names.size() > 99)
        return "at most 99 names";
    names_out = std::move(names);
    return std::nullopt;
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
        {"workspaces", false,
         [](std::string_view value, Options&, Entry entry) -> std::optional<std::string> {
             return parse_workspace_names(value, entry.output->workspaces);
         }},
        {"color-profile", false,
         [](std::string_view value, Options&, Entry entry) -> std::optional<std::string> {
             if (value == "srgb")
                 entry.output->colour_profile = OutputColourProfile::srgb;
             else if (value == "p3")
                 entry.output->colour_profile = OutputColourProfile::display_p3;
             else if (value == "bt2020-pq")
                 entry.output->colour_profile = OutputColourProfile::bt2020_pq;
             else if (value == "bt2020-hlg")
                 entry.output->colour_profile = OutputColourProfile::bt2020_hlg;
             else if (value.starts_with("icc:") && value.size() > 4) {
                 // Read now, so that a bad profile is a warning with kiln.ini's file and line; the output stays sRGB.
                 std::string why;
                 auto description = read_icc_output_description(std::string(value.substr(4)), why);
                 if (!description)
                     return "an RGB Display or ColorSpace ICC profile kiln can read for icc:PATH (" + why + ")";
                 entry.output->colour_profile = OutputColourProfile::icc;
                 entry.output->icc_description = std::move(description);
             } else
                 return "srgb, p3, bt2020-pq, bt2020-hlg or icc:PATH";
             return std::nullopt;
         }},
        {"sdr-white", false,
         [](std::string_view value, Options&, Entry entry) -> std::optional<std::string> {
             auto nits = parse_int(value, 1, 10000);
             if (!nits)
                 return "whole cd/m² where SDR white sits on a bt2020-pq or bt2020-hlg output, 1 to 10000, e.g. 203";
             entry.output->sdr_white = *nits;
             return std::nullopt;
         }},
        {"peak", false,
         [](std::string_view value, Options&, Entry entry) -> std::optional<std::string> {
             auto nits = parse_int(value, 1, 10000);
             if (!nits)
                 return "whole cd/m², the brightest a bt2020-pq or bt2020-hlg output shows, 1 to 10000, e.g. 1000";
             entry.output->peak = *nits;
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

// Modifiers that, with each of `count` keys from `first` (F1..F12, 1..9), do `action` for that key's number.
KeyHandler numbered_key(BindingAction action, uint32_t first, int count, const char* accepted)
{
    return [=](std::string_view value, Options& options, Entry entry) -> std::optional<std::string> {
        std::vector<Binding> added;
        if (value != "none") {
            std::string error;
            // The modifiers with the first key, so the combo parser checks them.
            char name[64];
            xkb_keysym_get_name(first, name, sizeof(name));
            auto combo = parse_key_combo(std::string(value) + "+" + name, error);
            if (!combo || value.empty())
                return std::string(accepted) + (error.empty() ? "" : " (" + error + ")");
            for (int n = 1; n <= count; ++n)
                added.push_back(Binding{.combo = {combo->modifiers, combo->keysym + static_cast<uint32_t>(n - 1)},
                                        .action = action,
                                        .vt = n,
                                        .line = entry.line});
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
         numbered_key(BindingAction::switch_vt, XKB_KEY_F1, 12,
                      "modifiers that with F1..F12 switch VT, e.g. Ctrl+Alt, or none")},
        {"workspace", false,
         numbered_key(BindingAction::workspace, XKB_KEY_1, 9,
                      "modifiers that with 1..9 show that workspace, e.g. Super, or none")},
        {"move-to-workspace", false,
         numbered_key(BindingAction::move_to_workspace, XKB_KEY_1, 9,
                      "modifiers that with 1..9 move the focused window to that workspace, e.g. Super+Shift, or none")},
        {"workspace-prev", false, action_key(BindingAction::workspace_prev)},
        {"workspace-next", false, action_key(BindingAction::workspace_next)},
        {"snap-left", false, action_key(BindingAction::snap_left)},
        {"snap-right", false, action_key(BindingAction::snap_right)},
        {"move-to-output-left", false, action_key(BindingAction::move_to_output_left)},
        {"move-to-output-right", false, action_key(BindingAction::move_to_output_right)},
        {"move-to-output-up", false, action_key(BindingAction::move_to_output_up)},
        {"move-to-output-down", false, action_key(BindingAction::move_to_output_down)},
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

const std::vector<KeySpec>& workspaces_keys()
{
    static const std::vector<KeySpec> keys = {
        {"names", false,
         [](std::string_view value, Options& options, Entry) -> std::optional<std::string> {
             return parse_workspace_names(value, options.workspaces.names);
         }},
        {"count", false,
         [](std::string_view value, Options& options, Entry) -> std::optional<std::string> {
             auto count = parse_int(value, 1, 99);
             if (!count)
                 return "how many numbered workspaces each output may have, 1 to 99";
             options.workspaces.count = *count;
             return std::nullopt;
         }},
    };
    return keys;
}

// A [rule]'s key: a non-empty text stored in the rule the section started (config.cpp makes it).
KeySpec rule_key(std::string_view name, std::string WindowRule::*field, std::string accepts)
{
    return {name, false,
            [field, accepts = std::move(accepts)](std::string_view value, Options&,
                                                  Entry entry) -> std::optional<std::string> {
                if (!entry.rule || value.empty())
                    return accepts;
                entry.rule->*field = std::string(value);
                return std::nullopt;
            }};
}

const std::vector<KeySpec>& rule_keys()
{
    static const std::vector<KeySpec> keys = {
        rule_key("tag", &WindowRule::tag, "the window's xdg-toplevel-tag, e.g. main window"),
        rule_key("app-id", &WindowRule::app_id, "the window's app_id, e.g. org.gnome.Terminal"),
        rule_key("workspace", &WindowRule::workspace, "a workspace's name or number, e.g. 2"),
        rule_key("output", &WindowRule::output, "an output's name, e.g. HDMI-A-1"),
    };
    return keys;
}

const SectionSpec section_specs[] = {
    {"keyboard", keyboard_keys}, {"output", output_keys},   {"startup", startup_keys},
    {"background", background_keys}, {"cache", cache_keys}, {"security", security_keys},
    {"bindings", bindings_keys}, {"input", input_keys},
    {"xwayland", xwayland_keys}, {"decorations", decorations_keys}, {"bell", bell_keys},
    {"workspaces", workspaces_keys}, {"rule", rule_keys},
};

}  // namespace

std::span<const SectionSpec> sections()
{
    return section_specs;
}

std::string key_names(const std::vector<KeySpec>& keys)
{
    std::string names;
    for (const auto& key : keys)
        names += (names.empty() ? "" : ", ") + std::string(key.name);
    return names;
}

}  // namespace kiln::compositor::ini
