#!/usr/bin/env python3
"""Interactive move and resize by an xdg-shell client's request on headless kiln (640x480): done with the serial of
the held press, not with a forged or stale one; resize from a corner and an edge, within the maximum size, the
opposite edges staying put."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check  # noqa: E402
from wayland_wire import Connection  # noqa: E402
from xdg_shell_client import (EDGE_BOTTOM_RIGHT, EDGE_LEFT, RESIZING, Input, run_cases, wait_box, wait_box_sized,
                              Window)  # noqa: E402


def move_by_request(kiln):
    with Connection(kiln.client_env) as conn:
        seat_input = Input(conn)
        window = Window(conn, "move")
        window.show(200, 150, 0xff8020a0)
        x0, y0, x1, y1 = wait_box_sized(kiln, 0xff8020a0, 200, 150, "the window is on screen")
        seat_input.move_to(x0 + 100, y0 + 75)

        serial = seat_input.press()
        conn.send(window.toplevel, 5, ("o", seat_input.seat), ("u", serial + 1000))  # move, forged serial
        seat_input.move_by(60, 40)
        seat_input.button(False)
        wait_box(kiln, 0xff8020a0, (x0, y0, x1, y1), "move with a forged serial: the window stays")
        stale = seat_input.press()
        seat_input.button(False)
        conn.send(window.toplevel, 5, ("o", seat_input.seat), ("u", stale))  # the press is over: stale
        seat_input.move_by(-60, -40)
        wait_box(kiln, 0xff8020a0, (x0, y0, x1, y1), "move with the serial of a released press: the window stays")
        conn.take(seat_input.pointer)
        seat_input.press()
        seat_input.button(False)
        check(any(e.args("uuuu")[3] == 0 for e in conn.take(seat_input.pointer, 3)),
              "no grab was left behind: the window still gets its clicks")

        serial = seat_input.press()
        conn.send(window.toplevel, 5, ("o", seat_input.seat), ("u", serial))  # move, the held press's serial
        conn.roundtrip()
        seat_input.move_by(60, 40)
        wait_box(kiln, 0xff8020a0, (x0 + 60, y0 + 40, x1 + 60, y1 + 40),
                 "move with the serial of the held press: the window follows the pointer")
        check(any(e.opcode == 1 for e in conn.take(seat_input.pointer)), "the window got a pointer leave")
        seat_input.button(False)
        seat_input.move_by(30, 30)
        wait_box(kiln, 0xff8020a0, (x0 + 60, y0 + 40, x1 + 60, y1 + 40), "after the release it stays")
        seat_input.close()


def resize_by_request(kiln):
    with Connection(kiln.client_env) as conn:
        seat_input = Input(conn)
        window = Window(conn, "resize")
        conn.send(window.toplevel, 7, ("i", 240), ("i", 170))  # set_max_size
        window.show(200, 150, 0xff20a0a0)
        x0, y0, x1, y1 = wait_box_sized(kiln, 0xff20a0a0, 200, 150, "the window is on screen")
        window.settle()
        seat_input.move_to(x1 - 5, y1 - 5)
        serial = seat_input.press()
        conn.send(window.toplevel, 6, ("o", seat_input.seat), ("u", serial), ("u", EDGE_BOTTOM_RIGHT))
        conn.roundtrip()
        seat_input.move_by(20, 10)
        width, height, states = window.configure_until(lambda w, h, s: (w, h) != (200, 150), "a bigger size")
        check((width, height) == (220, 160) and RESIZING in states,
              f"dragging the bottom-right corner by (20, 10) asks for 220x160, resizing ({width}x{height}, "
              f"states {sorted(states)})")
        window.draw(width, height, 0xff20a0a0)
        seat_input.move_by(60, 60)
        width, height, _ = window.configure_until(lambda w, h, s: (w, h) != (220, 160), "a bigger size")
        check((width, height) == (240, 170), f"but no more than the maximum size 240x170 ({width}x{height})")
        window.draw(width, height, 0xff20a0a0)
        wait_box(kiln, 0xff20a0a0, (x0, y0, x0 + 240, y0 + 170), "the top-left corner stays put")
        seat_input.button(False)
        width, height, states = window.configure_until(lambda w, h, s: RESIZING not in s, "the end of the resize")
        check((width, height) == (240, 170), f"the release ends the resize at 240x170 ({width}x{height})")

        seat_input.move_to(x0 + 5, y0 + 50)
        serial = seat_input.press()
        conn.send(window.toplevel, 6, ("o", seat_input.seat), ("u", serial), ("u", EDGE_LEFT))
        conn.roundtrip()
        seat_input.move_by(30, 0)
        width, height, _ = window.configure_until(lambda w, h, s: (w, h) != (240, 170), "a narrower size")
        check((width, height) == (210, 170), f"dragging the left edge by 30 asks for 210x170 ({width}x{height})")
        window.draw(width, height, 0xff20a0a0)
        wait_box(kiln, 0xff20a0a0, (x0 + 30, y0, x0 + 240, y0 + 170), "and the right edge stays put")
        seat_input.button(False)
        seat_input.close()


if __name__ == "__main__":
    run_cases([move_by_request, resize_by_request])
