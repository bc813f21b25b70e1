#!/usr/bin/env python3
"""kiln decorates managed X11 windows as an X window manager does (X programs without client-side decorations have
no other way to be moved or closed): a title bar with the window's title and a close box, and borders, in the
focused or unfocused colours. A window mapped at 0,0 is moved so they show; dragging the title bar moves the
window, dragging a border resizes it, the close box sends WM_DELETE_WINDOW; a maximized window keeps them inside
the usable area, a fullscreen one has none. A window whose _MOTIF_WM_HINTS ask for no decorations (GTK's,
Chromium's) gets none, from the start or when it changes them while mapped; nor do splash screens (and docks,
notifications and the like, by _NET_WM_WINDOW_TYPE) or override-redirect windows."""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, rgb, run_test, skip  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402
from wayland_wire import Connection  # noqa: E402
from x11_window import X11_CLIENT, XWindow, wait_active, x_display  # noqa: E402
from decoration_pixels import (ACTIVE, BORDER, CLOSE, INACTIVE, TITLE, bare, close_box_centre,  # noqa: E402
                               decorated_around, title_pixels)

SIZE = (640, 480)
RED, BLUE, GREEN = rgb("ff0000"), rgb("0000ff"), rgb("00ff00")
AWAY = (630, 10)  # where the pointer (drawn into the frame on headless) is out of every checked pixel's way


def box_of(x, y, w, h):
    """(x0, y0, x1, y1), x1 and y1 exclusive, of an X window's geometry."""
    return x, y, x + w, y + h


def wait_geometry(kiln, window, expected, what):
    kiln.wait_for(lambda: window.geometry() == expected, what)
    check(True, f"{what} (X geometry {expected})")


def wait_screen(kiln, predicate, what):
    kiln.wait_for(lambda: predicate(kiln.screenshot()), what)
    check(True, what)


def main():
    need("Xwayland")
    need("grim")
    if not Path(X11_CLIENT).exists():
        skip(f"{X11_CLIENT} is not built")
    with Kiln(size=f"{SIZE[0]}x{SIZE[1]}") as kiln, Connection(kiln.client_env) as conn:
        display = x_display(kiln)
        pointer = VirtualPointer(conn, SIZE)

        red = XWindow(kiln, display, "ff0000", 0, 0, 160, 100)
        wait_geometry(kiln, red, (BORDER, TITLE, 160, 100),
                      "an X11 window mapped at 0,0 is moved so kiln's title bar and left border are on the output")
        wait_active(red, red.id, "it has focus")
        red_box = box_of(BORDER, TITLE, 160, 100)
        wait_screen(kiln, lambda shot: decorated_around(shot, red_box, ACTIVE) and shot.bounding_box(RED) == red_box,
                    "kiln draws a title bar and borders around it in the focused colour")
        if os.environ.get("KILN_TITLE_TEXT", "1") == "1":
            check(title_pixels(kiln.screenshot(), red_box) > 50, "with its title on the title bar")

        blue = XWindow(kiln, display, "0000ff", 300, 200, 120, 80)
        wait_active(blue, blue.id, "a second X11 window takes focus")
        blue_box = box_of(300, 200, 120, 80)
        wait_screen(kiln, lambda shot: decorated_around(shot, blue_box, ACTIVE) and
                    decorated_around(shot, red_box, INACTIVE),
                    "the focused window's decoration is in the focused colour, the other's in the unfocused one")

        # The title bar's middle, well left of the close box.
        pointer.drag((60, 12), (160, 112))
        pointer.move(*AWAY)
        moved = (BORDER + 100, TITLE + 100, 160, 100)
        wait_geometry(kiln, red, moved, "dragging the title bar moves the window")
        wait_active(red, red.id, "and the press focused it")
        red_box = box_of(*moved)
        wait_screen(kiln, lambda shot: decorated_around(shot, red_box, ACTIVE) and shot.bounding_box(RED) == red_box,
                    "the decoration moved with it")

        # The right border, halfway down: a resize from the right edge.
        middle = (red_box[1] + red_box[3]) // 2
        pointer.drag((red_box[2] + 2, middle), (red_box[2] + 52, middle))
        pointer.move(*AWAY)
        wait_geometry(kiln, red, (moved[0], moved[1], 210, 100), "dragging the right border widens the window")
        red_box = box_of(moved[0], moved[1], 210, 100)
        wait_screen(kiln, lambda shot: decorated_around(shot, red_box, ACTIVE), "and its decoration fits the new width")

        red.command("decorations off", "decorations off")
        wait_screen(kiln, lambda shot: bare(shot, red_box),
                    "_MOTIF_WM_HINTS turning decorations off while mapped removes kiln's")
        red.command("decorations on", "decorations on")
        wait_screen(kiln, lambda shot: decorated_around(shot, red_box, ACTIVE), "and turning them on brings them back")

        plain = XWindow(kiln, display, "00ff00", 0, 380, 100, 60, "undecorated")
        plain_box = box_of(0, 380, 100, 60)
        wait_screen(kiln, lambda shot: shot.bounding_box(GREEN) == plain_box and bare(shot, plain_box),
                    "a window whose _MOTIF_WM_HINTS ask for no decorations gets none")
        check(plain.geometry() == (0, 380, 100, 60), "and stays where it asked to be, at the output's edge")
        plain.close()

        splash = XWindow(kiln, display, "00ff00", 0, 380, 100, 60, "splash")
        wait_screen(kiln, lambda shot: shot.bounding_box(GREEN) == plain_box and bare(shot, plain_box),
                    "nor does a splash screen (_NET_WM_WINDOW_TYPE_SPLASH), as under X window managers")
        check(splash.geometry() == (0, 380, 100, 60), "and it stays where it asked to be")
        splash.close()

        menu = XWindow(kiln, display, "00ff00", 500, 40, 60, 40, "override-redirect")
        menu_box = box_of(500, 40, 60, 40)
        wait_screen(kiln, lambda shot: shot.bounding_box(GREEN) == menu_box and bare(shot, menu_box),
                    "an override-redirect window (a menu) gets no decoration")
        menu.close()

        red.command("fullscreen on", "fullscreen on")
        wait_geometry(kiln, red, (0, 0, *SIZE), "a decorated window made fullscreen covers its output")
        # Every pixel is the window's but the pointer's (drawn into the frame on headless, 32x32 at most).
        wait_screen(kiln, lambda shot: shot.count(RED) >= SIZE[0] * SIZE[1] - 32 * 32,
                    "with no title bar or border on it, nor any other window's")
        red.command("fullscreen off", "fullscreen off")
        wait_geometry(kiln, red, (moved[0], moved[1], 210, 100), "leaving fullscreen puts it back")
        wait_screen(kiln, lambda shot: decorated_around(shot, red_box, ACTIVE), "with its decoration")

        wait_screen(kiln, lambda shot: shot.at(*close_box_centre(red_box)) == CLOSE,
                    "the close box is on the title bar")
        pointer.move(*close_box_centre(red_box))
        pointer.button(True)
        pointer.button(False)
        pointer.move(*AWAY)
        red.read_line("deleted")
        check(True, "a click on the close box asks the program to close the window (WM_DELETE_WINDOW)")
        wait_screen(kiln, lambda shot: shot.count(RED) == 0 and bare(shot, red_box) and
                    decorated_around(shot, blue_box, ACTIVE),
                    "its window and decoration are gone, and the other window has focus again")
        check(kiln.alive(), "kiln is fine")
        blue.close()


if __name__ == "__main__":
    run_test(main)
