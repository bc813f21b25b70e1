// The keymap kiln.ini's [keyboard] names, compiled with xkbcommon (no wlroots: --check-config uses it too).
#pragma once

#include "compositor/session/settings.hpp"

#include <xkbcommon/xkbcommon.h>

#include <string>

namespace kiln::compositor {

// The keymap of `settings` (empty names: xkbcommon's defaults), or null when xkbcommon cannot make it.
// The caller unrefs it.
xkb_keymap* compile_keymap(xkb_context* context, const KeyboardSettings& settings);
// Empty when xkbcommon makes a keymap of `settings`, else why not, naming what was asked.
std::string keymap_problem(const KeyboardSettings& settings);

}  // namespace kiln::compositor
