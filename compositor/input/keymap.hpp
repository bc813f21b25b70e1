// The keymap kiln.ini's [keyboard] names, compiled with xkbcommon (no wlroots: --check-config uses it too), with
// XKB_DEFAULT_* from the environment filling the names it leaves empty, as xkbcommon itself does.
#pragma once

#include "compositor/session/settings.hpp"

#include <xkbcommon/xkbcommon.h>

#include <string>

namespace kiln::compositor {

// An xkb_context that looks for keymap files where xkbcommon does (XKB_CONFIG_ROOT, ~/.config/xkb, ~/.xkb, the
// system's xkeyboard-config), logs nothing itself and does not read XKB_DEFAULT_* (kiln fills names from them
// itself, so it can tell which one xkbcommon refused); null when none of those folders exists. The caller unrefs it.
xkb_context* new_xkb_context();
// The keymap of `settings` as given (empty names: xkbcommon's built-in defaults), or null when xkbcommon cannot
// make it (a null `context` included). The caller unrefs it.
xkb_keymap* compile_keymap(xkb_context* context, const KeyboardSettings& settings);
// `settings` with the names it leaves empty filled from XKB_DEFAULT_*, the way xkbcommon fills them (the variant
// only along with the layout).
KeyboardSettings with_environment_names(const KeyboardSettings& settings);

// The keymap a keyboard gets: that of `settings` with XKB_DEFAULT_* filling its empty names; when xkbcommon cannot
// make it, the same without the XKB_DEFAULT_* it refused, or the environment's default, or xkbcommon's built-in one,
// with `problem` saying what was refused and what is used instead (one line); empty `problem` when nothing was.
// Null (with `problem`) only when xkbcommon finds no keymap files at all. The caller unrefs it.
xkb_keymap* keyboard_keymap(const KeyboardSettings& settings, std::string& problem);
// Empty when xkbcommon makes a keymap of `settings` (with XKB_DEFAULT_*), else why not, naming what it refused:
// [keyboard]'s names or the XKB_DEFAULT_* variables.
std::string keymap_problem(const KeyboardSettings& settings);
// Empty when xkbcommon can make its built-in default keymap (the one kiln falls back to last), else why not: kiln
// cannot give its keyboards any keymap and does not start.
std::string default_keymap_problem();

}  // namespace kiln::compositor
