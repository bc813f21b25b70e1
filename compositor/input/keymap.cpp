// Compiles [keyboard]'s rule names, with XKB_DEFAULT_* filling the empty ones, into an xkb_keymap, falls back when
// xkbcommon cannot, and says in words what it refused.
#include "compositor/input/keymap.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace kiln::compositor {

namespace {

std::string describe(const KeyboardSettings& settings)
{
    return "rules '" + settings.rules + "', model '" + settings.model + "', layout '" + settings.layout +
           "', variant '" + settings.variant + "', options '" + settings.options + "'";
}

// Where xkbcommon looked, for the one line that says it found nothing there.
std::string search_path()
{
    const char* root = std::getenv("XKB_CONFIG_ROOT");
    return root && *root ? std::string("XKB_CONFIG_ROOT=") + root : "the system's xkeyboard-config";
}

std::string no_files() { return "xkbcommon finds no keymap files (" + search_path() + "; is xkeyboard-config installed?)"; }

std::string environment(const char* variable)
{
    const char* value = std::getenv(variable);
    return value ? value : "";
}

// One XKB_DEFAULT_* variable that fills a name of `settings`, and the field it fills.
struct EnvironmentName {
    const char* variable;
    std::string KeyboardSettings::*field;
};

// The XKB_DEFAULT_* variables that fill `settings`' empty names, in xkbcommon's way.
std::vector<EnvironmentName> environment_names(const KeyboardSettings& settings)
{
    std::vector<EnvironmentName> names;
    auto fill = [&](const char* variable, std::string KeyboardSettings::*field) {
        if ((settings.*field).empty() && !environment(variable).empty())
            names.push_back({variable, field});
    };
    fill("XKB_DEFAULT_RULES", &KeyboardSettings::rules);
    fill("XKB_DEFAULT_MODEL", &KeyboardSettings::model);
    // xkbcommon takes the variant only along with the layout: they are a pair.
    if (settings.layout.empty() && !environment("XKB_DEFAULT_LAYOUT").empty()) {
        names.push_back({"XKB_DEFAULT_LAYOUT", &KeyboardSettings::layout});
        if (!environment("XKB_DEFAULT_VARIANT").empty())
            names.push_back({"XKB_DEFAULT_VARIANT", &KeyboardSettings::variant});
    }
    fill("XKB_DEFAULT_OPTIONS", &KeyboardSettings::options);
    return names;
}

KeyboardSettings filled(KeyboardSettings settings, const std::vector<EnvironmentName>& names)
{
    for (const auto& name : names)
        settings.*name.field = environment(name.variable);
    return settings;
}

std::string list(const std::vector<EnvironmentName>& names)
{
    std::string text;
    for (const auto& name : names)
        text += (text.empty() ? "" : ", ") + std::string(name.variable) + "='" + environment(name.variable) + "'";
    return text;
}

// What xkbcommon refused of `settings` filled from `names` (all of which it cannot make a keymap of): the first
// variable, most specific first, whose leaving out alone lets it (the variant before its layout, which xkbcommon
// would drop along with it), or all of them.
std::vector<EnvironmentName> refused_names(xkb_context* context, const KeyboardSettings& settings,
                                           const std::vector<EnvironmentName>& names)
{
    for (const char* suspect : {"XKB_DEFAULT_VARIANT", "XKB_DEFAULT_OPTIONS", "XKB_DEFAULT_MODEL", "XKB_DEFAULT_RULES",
                                "XKB_DEFAULT_LAYOUT"}) {
        std::vector<EnvironmentName> others;
        std::vector<EnvironmentName> refused;
        for (const auto& name : names)
            (std::strcmp(name.variable, suspect) == 0 ? refused : others).push_back(name);
        if (refused.empty())
            continue;
        if (xkb_keymap* keymap = compile_keymap(context, filled(settings, others))) {
            xkb_keymap_unref(keymap);
            return refused;
        }
    }
    return names;
}

bool names_keymap(const KeyboardSettings& settings)
{
    return !settings.rules.empty() || !settings.model.empty() || !settings.layout.empty() ||
           !settings.variant.empty() || !settings.options.empty();
}

}  // namespace

xkb_context* new_xkb_context()
{
    // Made without its folders first, so the log level is set before xkbcommon would print its own lines about
    // them: kiln's one line says what is missing.
    xkb_context* context = xkb_context_new(static_cast<xkb_context_flags>(XKB_CONTEXT_NO_DEFAULT_INCLUDES |
                                                                          XKB_CONTEXT_NO_ENVIRONMENT_NAMES));
    if (!context)
        return nullptr;
    xkb_context_set_log_level(context, XKB_LOG_LEVEL_CRITICAL);
    if (xkb_context_include_path_append_default(context) == 0) {
        xkb_context_unref(context);
        return nullptr;
    }
    return context;
}

xkb_keymap* compile_keymap(xkb_context* context, const KeyboardSettings& settings)
{
    if (!context)
        return nullptr;  // xkbcommon's own calls would dereference it
    // An empty name is null, which xkbcommon fills from its built-in defaults (the context reads no XKB_DEFAULT_*).
    auto name = [](const std::string& text) { return text.empty() ? nullptr : text.c_str(); };
    const xkb_rule_names names{name(settings.rules), name(settings.model), name(settings.layout),
                               name(settings.variant), name(settings.options)};
    return xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS);
}

KeyboardSettings with_environment_names(const KeyboardSettings& settings)
{
    return filled(settings, environment_names(settings));
}

xkb_keymap* keyboard_keymap(const KeyboardSettings& settings, std::string& problem)
{
    problem.clear();
    xkb_context* context = new_xkb_context();
    if (!context) {
        problem = no_files();
        return nullptr;
    }
    const auto names = environment_names(settings);
    xkb_keymap* keymap = compile_keymap(context, filled(settings, names));
    if (!keymap && !names.empty() && (keymap = compile_keymap(context, settings))) {
        // [keyboard] is fine; the environment is not: the variables xkbcommon refused are left out.
        const auto refused = refused_names(context, settings, names);
        std::vector<EnvironmentName> kept;
        for (const auto& name : names)
            if (std::none_of(refused.begin(), refused.end(), [&](const auto& r) { return r.field == name.field; }))
                kept.push_back(name);
        if (xkb_keymap* rest = kept.empty() ? nullptr : compile_keymap(context, filled(settings, kept))) {
            xkb_keymap_unref(keymap);
            keymap = rest;
        } else {
            kept.clear();
        }
        problem = "xkbcommon cannot make a keymap of " + list(refused) + " from the environment; " +
                  (kept.empty() && !names_keymap(settings) ? "using its default"
                                                           : refused.size() == 1 ? "leaving it out" : "leaving them out");
    } else if (!keymap) {
        // [keyboard] itself: the environment's default keymap then, or xkbcommon's built-in one.
        problem = "xkbcommon cannot make a keymap of [keyboard] (" + describe(settings) + ")";
        const auto defaults = environment_names(KeyboardSettings{});
        if (!defaults.empty() && !(keymap = compile_keymap(context, filled(KeyboardSettings{}, defaults))))
            problem += " nor of " + list(defaults) + " from the environment";
        if (!keymap)
            keymap = compile_keymap(context, KeyboardSettings{});
        problem += "; using its default";
    }
    xkb_context_unref(context);  // the keymap holds its own reference
    return keymap;
}

std::string keymap_problem(const KeyboardSettings& settings)
{
    std::string problem;
    xkb_keymap_unref(keyboard_keymap(settings, problem));
    // Up to what was refused: what kiln uses instead is for the running kiln to say.
    return problem.substr(0, problem.find("; using"));
}

std::string default_keymap_problem()
{
    xkb_context* context = new_xkb_context();
    if (!context)
        return "no keymap: " + no_files();
    xkb_keymap* keymap = compile_keymap(context, KeyboardSettings{});
    xkb_keymap_unref(keymap);
    xkb_context_unref(context);
    if (keymap)
        return {};
    return "no keymap: xkbcommon cannot make its default keymap from " + search_path() +
           " (is xkeyboard-config complete?)";
}

}  // namespace kiln::compositor
