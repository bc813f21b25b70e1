#!/usr/bin/env python3
"""xdg-shell popups on headless kiln (640x480): kept inside the output by their positioner's constraint adjustments
(flip, slide, resize), nested popups too, and a grabbing popup dismissed by a click outside, its grab refused with
a forged serial."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check  # noqa: E402
from wayland_wire import Connection  # noqa: E402
from xdg_shell_client import (BOTTOM_LEFT, BOTTOM_RIGHT, FLIP_X, FLIP_Y, OUTPUT_W, RESIZE_Y, SLIDE_X, TOP_LEFT,
                              TOP_RIGHT, Input, make_positioner, Popup, run_cases, wait_box_sized, Window)  # noqa: E402


def popup_constraints(kiln):
    with Connection(kiln.client_env) as conn:
        window = Window(conn, "popup parent")
        window.show(200, 150, 0xff606060)
        wx, wy, _, _ = wait_box_sized(kiln, 0xff606060, 200, 150, "the parent is on screen")
        check((wx, wy) == (220, 165), f"the parent is centred ({wx}, {wy})")
        wm_base = window.wm_base
        cases = [
            # (what, size, anchor rect, anchor, gravity, adjustment, expected x, y, width, height)
            ("at the right edge, flip_x flips it to the left of its anchor",
             (300, 100), (190, 10, 10, 10), TOP_RIGHT, BOTTOM_RIGHT, FLIP_X | FLIP_Y, (-110, 10, 300, 100)),
            ("at the bottom edge, flip_y flips it above its anchor",
             (100, 200), (10, 140, 10, 10), BOTTOM_LEFT, BOTTOM_RIGHT, FLIP_X | FLIP_Y, (10, -60, 100, 200)),
            ("at the left edge, flip_x flips it to the right",
             (300, 100), (0, 10, 10, 10), TOP_LEFT, BOTTOM_LEFT, FLIP_X, (10, 10, 300, 100)),
            ("at the top edge, flip_y flips it below",
             (100, 200), (10, 0, 10, 10), TOP_LEFT, TOP_RIGHT, FLIP_Y, (10, 10, 100, 200)),
            ("at the right edge, slide_x slides it back inside",
             (300, 100), (190, 10, 10, 10), TOP_RIGHT, BOTTOM_RIGHT, SLIDE_X, (120, 10, 300, 100)),
            ("at the bottom edge, resize_y shortens it to fit",
             (100, 200), (10, 140, 10, 10), BOTTOM_LEFT, BOTTOM_RIGHT, RESIZE_Y, (10, 150, 100, 165)),
            ("inside the output it is left as the positioner put it",
             (50, 50), (10, 10, 10, 10), BOTTOM_RIGHT, BOTTOM_RIGHT, FLIP_X | FLIP_Y, (20, 20, 50, 50)),
        ]
        for what, size, rect, anchor, gravity, adjustment, expected in cases:
            positioner = make_positioner(conn, wm_base, size, rect, anchor, gravity, adjustment)
            popup = Popup(conn, wm_base, window.xdg_surface, positioner)
            got = popup.configure()
            check(got == expected, f"popup {what}: {got}")
            popup.destroy()

        # A popup of a popup is kept inside too.
        outer = Popup(conn, wm_base, window.xdg_surface,
                      make_positioner(conn, wm_base, (100, 100), (190, 0, 10, 10), TOP_RIGHT, BOTTOM_RIGHT, FLIP_X))
        ox, oy, _, _ = outer.configure()
        outer.draw(100, 100, 0xff909090)
        inner = Popup(conn, wm_base, outer.xdg_surface,
                      make_positioner(conn, wm_base, (150, 50), (90, 0, 10, 10), TOP_RIGHT, BOTTOM_RIGHT, FLIP_X))
        ix, iy, _, _ = inner.configure()
        left = wx + ox + ix
        check((ox, ix) == (200, -60) and 0 <= left and left + 150 <= OUTPUT_W,
              f"a nested popup past the right edge flips to the left of its parent popup (x {ox} + {ix}: "
              f"{left}..{left + 150} on screen)")


def popup_grab(kiln):
    with Connection(kiln.client_env) as conn:
        seat_input = Input(conn)
        window = Window(conn, "popup grab")
        window.show(200, 150, 0xff305070)
        x0, y0, _, _ = wait_box_sized(kiln, 0xff305070, 200, 150, "the parent is on screen")
        seat_input.move_to(x0 + 20, y0 + 20)
        serial = seat_input.press()
        positioner = make_positioner(conn, window.wm_base, (80, 60), (20, 20, 1, 1), TOP_LEFT, BOTTOM_RIGHT, 0)
        popup = Popup(conn, window.wm_base, window.xdg_surface, positioner, grab=(seat_input.seat, serial))
        popup.configure()
        popup.draw(80, 60, 0xffd0d0d0)
        seat_input.button(False)
        wait_box_sized(kiln, 0xffd0d0d0, 80, 60, "the grabbing popup is on screen")

        seat_input.move_to(x0 + 40, y0 + 40)  # inside the popup
        seat_input.button(True)
        seat_input.button(False)
        check(conn.take(popup.popup, 1) == [], "a click inside the popup does not dismiss it")
        seat_input.move_to(5, 5)  # the background
        seat_input.button(True)
        conn.dispatch_until(lambda e: e.obj == popup.popup and e.opcode == 1)
        seat_input.button(False)
        check(True, "a click outside the client's surfaces sends popup_done")
        popup.destroy()

        # A grab with a serial the client never got is refused: the popup is dismissed at once, nothing grabbed.
        for forged in (123456, 0):
            positioner = make_positioner(conn, window.wm_base, (80, 60), (20, 20, 1, 1), TOP_LEFT, BOTTOM_RIGHT, 0)
            popup = Popup(conn, window.wm_base, window.xdg_surface, positioner, grab=(seat_input.seat, forged))
            conn.dispatch_until(lambda e: e.obj == popup.popup and e.opcode == 1)
            check(True, f"a grab with the forged serial {forged} gets popup_done without a click")
            popup.destroy()
        seat_input.move_to(x0 + 150, y0 + 100)
        conn.take(seat_input.pointer)
        seat_input.press()
        seat_input.button(False)
        check(True, "after the refused grabs, the window gets clicks")
        seat_input.close()


if __name__ == "__main__":
    run_cases([popup_constraints, popup_grab])
