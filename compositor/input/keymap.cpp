// Compiles [keyboard]'s rule names into an xkb_keymap, and says in words when xkbcommon cannot.
#include "compositor/input/keymap.hpp"

#include <cstdlib>

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

}  // namespace

xkb_context* new_xkb_context()
{
    // Made without its folders first, so the log level is set before xkbcommon would print its own lines about
    // them: kiln's one line says what is missing.
    xkb_context* context = xkb_context_new(XKB_CONTEXT_NO_DEFAULT_INCLUDES);
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
    // An empty name is null, which xkbcommon fills from XKB_DEFAULT_* or its built-in default.
    auto name = [](const std::string& text) { return text.empty() ? nullptr : text.c_str(); };
    const xkb_rule_names names{name(settings.rules), name(settings.model), name(settings.layout),
                               name(settings.variant), name(settings.options)};
    return xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS);
}

std::string keymap_problem(const KeyboardSettings& settings)
{
    xkb_context* context = new_xkb_context();
    if (!context)
        return "xkbcommon finds no keymap files (" + search_path() + "; is xkeyboard-config installed?)";
    xkb_keymap* keymap = compile_keymap(context, settings);
    xkb_keymap_unref(keymap);
    xkb_context_unref(context);
    if (keymap)
        return {};
    return "xkbcommon cannot make a keymap of [keyboard] (" + describe(settings) + ")";
}

std::string default_keymap_problem()
{
    xkb_context* context = new_xkb_context();
    if (!context)
        return "no keymap: xkbcommon finds no keymap files (" + search_path() + "; is xkeyboard-config installed?)";
    xkb_keymap* keymap = xkb_keymap_new_from_names(context, nullptr, XKB_KEYMAP_COMPILE_NO_FLAGS);
    xkb_keymap_unref(keymap);
    xkb_context_unref(context);
    if (keymap)
        return {};
    return "no keymap: xkbcommon cannot make its default keymap from " + search_path() +
           " (is xkeyboard-config complete?)";
}

}  // namespace kiln::compositor
