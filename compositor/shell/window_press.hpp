// What a pointer button pressed on a window or on kiln's decoration around it does besides focusing the window: the
// decisions alone, in plain values, so they can be tested without a display.
#pragma once

#include "compositor/shell/server_decoration.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>

namespace kiln::compositor {

struct PressOnWindow {
    enum class Action {
        focus,   // the window is focused and its client hears the press
        move,    // an interactive move starts; no client hears the press
        resize,  // an interactive resize from `edges` starts; no client hears the press
        close,   // the window is asked to close
    };
    Action action = Action::focus;
    uint32_t edges = 0;  // wlr_edges, for a resize

    bool operator==(const PressOnWindow&) const = default;
};

// Super + left button moves a window wherever it is grabbed, like most desktops, and Super + right button resizes it
// from the corner nearest the pointer at (`lx`, `ly`); unless kiln's shortcuts stand aside
// (`shortcuts_inhibited`), when the press is the window's. `modifiers` are wlr_keyboard_modifier bits.
PressOnWindow press_on_window(uint32_t button, uint32_t modifiers, bool shortcuts_inhibited, const wlr_box& window,
                              double lx, double ly);

// On kiln's decoration (no client hears the press) the left button on the title bar moves the window, on a border
// resizes it from that border, on the close box asks it to close; a maximized or fullscreen window (`fills`) is
// neither moved nor resized, and other buttons only focus.
PressOnWindow press_on_decoration(uint32_t button, const ServerDecoration::Part& part, bool fills);

}  // namespace kiln::compositor
