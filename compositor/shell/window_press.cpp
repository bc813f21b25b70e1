// The decisions of what a button pressed on a window does (focus only, or a Super + drag move or resize) and on its
// decoration (a move, a resize from an edge, close).
#include "compositor/shell/window_press.hpp"

#include <linux/input-event-codes.h>

namespace kiln::compositor {

PressOnWindow press_on_window(uint32_t button, uint32_t modifiers, bool shortcuts_inhibited, const wlr_box& window,
                              double lx, double ly)
{
    const bool super = (modifiers & WLR_MODIFIER_LOGO) && !shortcuts_inhibited;
    if (super && button == BTN_LEFT)
        return {PressOnWindow::Action::move, 0};
    if (super && button == BTN_RIGHT) {
        const uint32_t edges = (lx < window.x + window.width / 2.0 ? WLR_EDGE_LEFT : WLR_EDGE_RIGHT) |
                               (ly < window.y + window.height / 2.0 ? WLR_EDGE_TOP : WLR_EDGE_BOTTOM);
        return {PressOnWindow::Action::resize, edges};
    }
    return {};
}

PressOnWindow press_on_decoration(uint32_t button, const ServerDecoration::Part& part, bool fills)
{
    if (button != BTN_LEFT)
        return {};
    switch (part.action) {
    case ServerDecoration::Action::move:
        return fills ? PressOnWindow{} : PressOnWindow{PressOnWindow::Action::move, 0};
    case ServerDecoration::Action::resize:
        return fills ? PressOnWindow{} : PressOnWindow{PressOnWindow::Action::resize, part.edges};
    case ServerDecoration::Action::close:
        return {PressOnWindow::Action::close, 0};
    case ServerDecoration::Action::none:
        break;
    }
    return {};
}

}  // namespace kiln::compositor
