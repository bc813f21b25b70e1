// Key combinations as kiln.ini writes them ("Super+Shift+E"), parsed with xkbcommon's keysym names; no wlroots.
#pragma once

#include "compositor/session/settings.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace kiln::compositor {

// "Mod+Mod+Key": modifiers Super (Logo, Mod4), Ctrl (Control), Alt (Mod1), Shift, any case; the key by its xkb
// keysym name (Return, q, F1, Up, XF86AudioMute), any case. nullopt with `error` saying what is wrong.
std::optional<KeyCombo> parse_key_combo(std::string_view text, std::string& error);
// The combo as kiln.ini would write it: "Super+Shift+e".
std::string describe(const KeyCombo& combo);

}  // namespace kiln::compositor
