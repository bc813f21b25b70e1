// Compiles [keyboard]'s rule names into an xkb_keymap, and says in words when xkbcommon cannot.
#include "compositor/input/keymap.hpp"

namespace kiln::compositor {

xkb_keymap* compile_keymap(xkb_context* context, const KeyboardSettings& settings)
{
    // An empty name is null, which xkbcommon fills from XKB_DEFAULT_* or its built-in default.
    auto name = [](const std::string& text) { return text.empty() ? nullptr : text.c_str(); };
    const xkb_rule_names names{name(settings.rules), name(settings.model), name(settings.layout),
                               name(settings.variant), name(settings.options)};
    return xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS);
}

std::string keymap_problem(const KeyboardSettings& settings)
{
    xkb_context* context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    if (!context)
        return "xkbcommon cannot start (no xkb_context)";
    xkb_context_set_log_level(context, XKB_LOG_LEVEL_CRITICAL);  // our one line says it, not xkbcommon's many
    xkb_keymap* keymap = compile_keymap(context, settings);
    xkb_keymap_unref(keymap);
    xkb_context_unref(context);
    if (keymap)
        return {};
    return "xkbcommon cannot make a keymap of [keyboard] (rules '" + settings.rules + "', model '" + settings.model +
           "', layout '" + settings.layout + "', variant '" + settings.variant + "', options '" + settings.options +
           "')";
}

}  // namespace kiln::compositor
