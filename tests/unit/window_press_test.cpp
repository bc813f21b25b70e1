// What a button pressed on a window does: focus only, a Super + left drag move, a Super + right drag resize from the
// nearest corner, nothing of kiln's while its shortcuts stand aside; and on kiln's decoration, what its part does.
#include "compositor/shell/window_press.hpp"

#include <catch2/catch_test_macros.hpp>

#include <linux/input-event-codes.h>

using namespace kiln::compositor;
using Action = PressOnWindow::Action;
using Part = ServerDecoration::Part;
using Decoration = ServerDecoration::Action;

namespace {

const wlr_box window{100, 50, 400, 300};  // its middle is at (300, 200)
constexpr uint32_t super = WLR_MODIFIER_LOGO;

}  // namespace

TEST_CASE("a plain click only focuses: the window hears it")
{
    for (uint32_t button : {BTN_LEFT, BTN_RIGHT, BTN_MIDDLE})
        CHECK(press_on_window(button, 0, false, window, 150, 100) == PressOnWindow{Action::focus, 0});
    // Other modifiers are the window's business (Alt + click, Ctrl + click).
    CHECK(press_on_window(BTN_LEFT, WLR_MODIFIER_ALT, false, window, 150, 100).action == Action::focus);
    CHECK(press_on_window(BTN_RIGHT, WLR_MODIFIER_CTRL | WLR_MODIFIER_SHIFT, false, window, 150, 100).action ==
          Action::focus);
}

TEST_CASE("Super + left button moves the window wherever it is grabbed")
{
    CHECK(press_on_window(BTN_LEFT, super, false, window, 150, 100) == PressOnWindow{Action::move, 0});
    CHECK(press_on_window(BTN_LEFT, super, false, window, 490, 340) == PressOnWindow{Action::move, 0});
    // Super with other modifiers held too still moves.
    CHECK(press_on_window(BTN_LEFT, super | WLR_MODIFIER_SHIFT, false, window, 150, 100).action == Action::move);
    // The middle button with Super is the window's.
    CHECK(press_on_window(BTN_MIDDLE, super, false, window, 150, 100).action == Action::focus);
}

TEST_CASE("Super + right button resizes from the corner nearest the pointer")
{
    CHECK(press_on_window(BTN_RIGHT, super, false, window, 150, 100) ==
          PressOnWindow{Action::resize, WLR_EDGE_LEFT | WLR_EDGE_TOP});
    CHECK(press_on_window(BTN_RIGHT, super, false, window, 450, 100) ==
          PressOnWindow{Action::resize, WLR_EDGE_RIGHT | WLR_EDGE_TOP});
    CHECK(press_on_window(BTN_RIGHT, super, false, window, 150, 300) ==
          PressOnWindow{Action::resize, WLR_EDGE_LEFT | WLR_EDGE_BOTTOM});
    CHECK(press_on_window(BTN_RIGHT, super, false, window, 450, 300) ==
          PressOnWindow{Action::resize, WLR_EDGE_RIGHT | WLR_EDGE_BOTTOM});
    // The middle itself counts as the far side (right, bottom).
    CHECK(press_on_window(BTN_RIGHT, super, false, window, 300, 200) ==
          PressOnWindow{Action::resize, WLR_EDGE_RIGHT | WLR_EDGE_BOTTOM});
}

TEST_CASE("while kiln's shortcuts stand aside, Super + drag is the window's own")
{
    CHECK(press_on_window(BTN_LEFT, super, true, window, 150, 100) == PressOnWindow{Action::focus, 0});
    CHECK(press_on_window(BTN_RIGHT, super, true, window, 150, 100) == PressOnWindow{Action::focus, 0});
}

TEST_CASE("the left button on a decoration moves, resizes from its edge or closes the window")
{
    CHECK(press_on_decoration(BTN_LEFT, Part{Decoration::move, 0}, false) == PressOnWindow{Action::move, 0});
    CHECK(press_on_decoration(BTN_LEFT, Part{Decoration::resize, WLR_EDGE_LEFT | WLR_EDGE_BOTTOM}, false) ==
          PressOnWindow{Action::resize, WLR_EDGE_LEFT | WLR_EDGE_BOTTOM});
    CHECK(press_on_decoration(BTN_LEFT, Part{Decoration::resize, WLR_EDGE_TOP}, false) ==
          PressOnWindow{Action::resize, WLR_EDGE_TOP});
    CHECK(press_on_decoration(BTN_LEFT, Part{Decoration::close, 0}, false) == PressOnWindow{Action::close, 0});
}

TEST_CASE("a maximized or fullscreen window is neither moved nor resized by its decoration, but closes")
{
    CHECK(press_on_decoration(BTN_LEFT, Part{Decoration::move, 0}, true) == PressOnWindow{Action::focus, 0});
    CHECK(press_on_decoration(BTN_LEFT, Part{Decoration::resize, WLR_EDGE_RIGHT}, true) ==
          PressOnWindow{Action::focus, 0});
    CHECK(press_on_decoration(BTN_LEFT, Part{Decoration::close, 0}, true) == PressOnWindow{Action::close, 0});
}

TEST_CASE("other buttons on a decoration only focus the window")
{
    for (uint32_t button : {BTN_RIGHT, BTN_MIDDLE}) {
        CHECK(press_on_decoration(button, Part{Decoration::move, 0}, false) == PressOnWindow{Action::focus, 0});
        CHECK(press_on_decoration(button, Part{Decoration::resize, WLR_EDGE_LEFT}, false) ==
              PressOnWindow{Action::focus, 0});
        CHECK(press_on_decoration(button, Part{Decoration::close, 0}, false) == PressOnWindow{Action::focus, 0});
    }
}
