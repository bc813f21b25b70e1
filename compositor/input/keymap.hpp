// The keymap kiln.ini's [keyboard] names, compiled with xkbcommon (no wlroots: --check-config uses it too).
#pragma once

#include "compositor/session/settings.hpp"

#include <xkbcommon/xkbcommon.h>

#include <string>

namespace kiln::compositor {

// An xkb_context that looks for keymap files where xkbcommon does (XKB_CONFIG_ROOT, ~/.config/xkb, ~/.xkb, the
// system's xkeyboard-config) and logs nothing itself; null when none of those folders exists. The caller unrefs it.
xkb_context* new_xkb_context();
// The keymap of `settings` (empty names: xkbcommon's defaults), or null when xkbcommon cannot make it (a null
// `context` included). The caller unrefs it.
xkb_keymap* compile_keymap(xkb_context* context, const KeyboardSettings& settings);
// Empty when xkbcommon makes a keymap of `settings`, else why not, naming what was asked.
std::string keymap_problem(const KeyboardSettings& settings);
// Empty when xkbcommon can make its default keymap (the one kiln falls back to), else why not: kiln cannot give its
// keyboards any keymap and does not start.
std::string default_keymap_problem();

}  // namespace kiln::compositor
