// Matches key presses against [bindings] (modifiers and the key's unshifted keysym) and runs their actions.
#include "compositor/input/bindings.hpp"

#include "compositor/input/window_input.hpp"
#include "compositor/log.hpp"
#include "compositor/session/spawn.hpp"

#include <cstdio>

namespace kiln::compositor {
namespace {

uint32_t binding_modifiers(wlr_keyboard* keyboard)
{
    const uint32_t held = wlr_keyboard_get_modifiers(keyboard);
    uint32_t modifiers = 0;
    if (held & WLR_MODIFIER_SHIFT)
        modifiers |= modifier_shift;
    if (held & WLR_MODIFIER_CTRL)
        modifiers |= modifier_ctrl;
    if (held & WLR_MODIFIER_ALT)
        modifiers |= modifier_alt;
    if (held & WLR_MODIFIER_LOGO)
        modifiers |= modifier_super;
    return modifiers;  // Caps Lock and Num Lock change no binding
}

void run_command(const std::string& command)
{
    std::string error;
    if (spawn_shell(command, error) < 0)
        log::error("cannot run '%s': %s", command.c_str(), error.c_str());
}

}  // namespace

bool Bindings::key_pressed(wlr_keyboard* keyboard, uint32_t keycode, bool inhibited)
{
    if (!keyboard->xkb_state || !keyboard->keymap)
        return false;
    const uint32_t modifiers = binding_modifiers(keyboard);
    // The key's keysyms at its first level in the active layout: Super+Shift+E is bound as Super+Shift+e, and
    // Ctrl+Alt+F1 as F1 (not the XF86Switch_VT_1 its higher level has).
    const xkb_keycode_t xkb_keycode = keycode + 8;
    const xkb_layout_index_t layout = xkb_state_key_get_layout(keyboard->xkb_state, xkb_keycode);
    const xkb_keysym_t* syms = nullptr;
    const int count = xkb_keymap_key_get_syms_by_level(keyboard->keymap, xkb_keycode,
                                                       layout == XKB_LAYOUT_INVALID ? 0 : layout, 0, &syms);
    for (int i = 0; i < count; ++i) {
        const KeyCombo pressed{modifiers, xkb_keysym_to_lower(syms[i])};
        for (const Binding& binding : options_.bindings.bindings) {
            if (!(binding.combo == pressed))
                continue;
            if (inhibited && binding.action != BindingAction::switch_vt)
                return false;
            // A copy: the action runs with the binding list as it was, even if the action changes Options.
            run(Binding(binding));
            return true;
        }
    }
    return false;
}

void Bindings::run(const Binding& binding)
{
    switch (binding.action) {
    case BindingAction::open_terminal: {
        std::string terminal = options_.bindings.terminal;
        if (terminal.empty())
            terminal = find_terminal();
        if (terminal.empty())
            log::error("no terminal to open: none of foot, weston-terminal and xterm is on PATH; "
                       "set terminal= in kiln.ini's [bindings]");
        else
            run_command(terminal);
        break;
    }
    case BindingAction::close:
        windows_.close_focused();
        break;
    case BindingAction::focus_next:
        windows_.focus_next();
        break;
    case BindingAction::fullscreen:
        windows_.toggle_fullscreen_focused();
        break;
    case BindingAction::maximize:
        windows_.toggle_maximized_focused();
        break;
    case BindingAction::quit:
        session_.terminate(0);
        break;
    case BindingAction::switch_vt:
        session_.switch_vt(binding.vt);
        break;
    case BindingAction::command:
        run_command(binding.command);
        break;
    case BindingAction::workspace:
    case BindingAction::move_to_workspace:
    case BindingAction::workspace_prev:
    case BindingAction::workspace_next:
    case BindingAction::snap_left:
    case BindingAction::snap_right:
    case BindingAction::move_to_output_left:
    case BindingAction::move_to_output_right:
    case BindingAction::move_to_output_up:
    case BindingAction::move_to_output_down:
        windows_.window_key(binding.action, binding.vt);
        break;
    }
}

}  // namespace kiln::compositor
