// Parses and names key combinations, and holds kiln's default key bindings.
#include "compositor/session/key_combo.hpp"

#include <xkbcommon/xkbcommon.h>

#include <algorithm>
#include <cctype>

namespace kiln::compositor {
namespace {

bool same_word(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

std::optional<uint32_t> parse_modifier(std::string_view name)
{
    static const std::pair<std::string_view, uint32_t> names[] = {
        {"super", modifier_super}, {"logo", modifier_super}, {"mod4", modifier_super},
        {"ctrl", modifier_ctrl},   {"control", modifier_ctrl}, {"alt", modifier_alt},
        {"mod1", modifier_alt},    {"shift", modifier_shift},
    };
    for (const auto& [word, bit] : names)
        if (same_word(name, word))
            return bit;
    return std::nullopt;
}

Binding make(uint32_t modifiers, uint32_t keysym, BindingAction action, int vt = 0)
{
    return Binding{.combo = {modifiers, keysym}, .action = action, .vt = vt};
}

}  // namespace

std::optional<KeyCombo> parse_key_combo(std::string_view text, std::string& error)
{
    KeyCombo combo;
    if (text.empty()) {
        error = "an empty key combination";
        return std::nullopt;
    }
    size_t start = 0;
    while (true) {
        const size_t plus = text.find('+', start);
        // The last part is the key ("Super++" is not allowed: plus is spelled "plus", as xkbcommon names it).
        const std::string_view part = text.substr(start, plus == std::string_view::npos ? plus : plus - start);
        if (part.empty()) {
            error = "an empty part in '" + std::string(text) + "'";
            return std::nullopt;
        }
        if (plus == std::string_view::npos) {
            if (parse_modifier(part)) {
                error = "'" + std::string(text) + "' ends in a modifier; it needs a key";
                return std::nullopt;
            }
            const std::string name(part);
            xkb_keysym_t keysym = xkb_keysym_from_name(name.c_str(), XKB_KEYSYM_NO_FLAGS);
            if (keysym == XKB_KEY_NoSymbol)
                keysym = xkb_keysym_from_name(name.c_str(), XKB_KEYSYM_CASE_INSENSITIVE);
            if (keysym == XKB_KEY_NoSymbol) {
                error = "unknown key '" + name + "' (an xkb keysym name: Return, q, F1, Up, Tab, ...)";
                return std::nullopt;
            }
            combo.keysym = xkb_keysym_to_lower(keysym);
            return combo;
        }
        const auto modifier = parse_modifier(part);
        if (!modifier) {
            error = "unknown modifier '" + std::string(part) + "' (Super, Ctrl, Alt or Shift)";
            return std::nullopt;
        }
        combo.modifiers |= *modifier;
        start = plus + 1;
    }
}

std::string describe(const KeyCombo& combo)
{
    std::string text;
    if (combo.modifiers & modifier_super)
        text += "Super+";
    if (combo.modifiers & modifier_ctrl)
        text += "Ctrl+";
    if (combo.modifiers & modifier_alt)
        text += "Alt+";
    if (combo.modifiers & modifier_shift)
        text += "Shift+";
    char name[64];
    if (xkb_keysym_get_name(combo.keysym, name, sizeof(name)) < 0)
        return text + "?";
    return text + name;
}

std::vector<Binding> default_bindings()
{
    std::vector<Binding> bindings = {
        make(modifier_super, XKB_KEY_Return, BindingAction::open_terminal),
        make(modifier_super, XKB_KEY_q, BindingAction::close),
        make(modifier_alt, XKB_KEY_Tab, BindingAction::focus_next),
        make(modifier_super, XKB_KEY_Tab, BindingAction::focus_next),
        make(modifier_super, XKB_KEY_f, BindingAction::fullscreen),
        make(modifier_super, XKB_KEY_Up, BindingAction::maximize),
        make(modifier_super | modifier_shift, XKB_KEY_e, BindingAction::quit),
    };
    for (int n = 1; n <= 9; ++n) {
        const uint32_t key = XKB_KEY_1 + static_cast<uint32_t>(n - 1);
        bindings.push_back(make(modifier_super, key, BindingAction::workspace, n));
        bindings.push_back(make(modifier_super | modifier_shift, key, BindingAction::move_to_workspace, n));
    }
    bindings.push_back(make(modifier_super | modifier_ctrl, XKB_KEY_Left, BindingAction::workspace_prev));
    bindings.push_back(make(modifier_super | modifier_ctrl, XKB_KEY_Right, BindingAction::workspace_next));
    bindings.push_back(make(modifier_super, XKB_KEY_Left, BindingAction::snap_left));
    bindings.push_back(make(modifier_super, XKB_KEY_Right, BindingAction::snap_right));
    bindings.push_back(make(modifier_super | modifier_shift, XKB_KEY_Left, BindingAction::move_to_output_left));
    bindings.push_back(make(modifier_super | modifier_shift, XKB_KEY_Right, BindingAction::move_to_output_right));
    bindings.push_back(make(modifier_super | modifier_shift, XKB_KEY_Up, BindingAction::move_to_output_up));
    bindings.push_back(make(modifier_super | modifier_shift, XKB_KEY_Down, BindingAction::move_to_output_down));
    for (int vt = 1; vt <= 12; ++vt)
        bindings.push_back(make(modifier_ctrl | modifier_alt, XKB_KEY_F1 + static_cast<uint32_t>(vt - 1),
                                BindingAction::switch_vt, vt));
    return bindings;
}

}  // namespace kiln::compositor
