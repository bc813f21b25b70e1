"""Stacks kiln's windows on one spot as a user would: Super+drag each one there through a virtual keyboard and a
virtual pointer (the standard wlroots input protocols), so a benchmark can compare kiln with a peer whose floating
windows all sit centred on top of each other, without anything in kiln made for the benchmark."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "lib"))
from virtual_input import SUPER, VirtualKeyboard, VirtualPointer  # noqa: E402
from wayland_wire import Connection  # noqa: E402

from .workload import kiln_position  # noqa: E402

WL_KEYBOARD_KEYMAP = 0


def _covered(point, rects):
    return any(x <= point[0] < x + w and y <= point[1] < y + h for x, y, w, h in rects)


def _visible_point(rect, above):
    """A point of `rect` (x, y, w, h) that none of the rectangles `above` covers, inside by a margin."""
    x, y, w, h = rect
    for py in range(y + 8, y + h - 8, 8):
        for px in range(x + 8, x + w - 8, 8):
            if not _covered((px, py), above):
                return px, py
    return None


def stack_windows(env, count, output, window):
    """Moves kiln's `count` windows of `window` (w, h), placed by kiln in mapping order (workload.kiln_position), onto
    the first one's spot (centred, where sway puts a floating window): the topmost first, so each window dragged is
    uncovered where it is grabbed (only windows already moved to the centre are above it). Returns the spot."""
    centre = kiln_position(0, output)
    with Connection(env) as conn:
        seat = conn.bind("wl_seat", 5)
        keyboard = conn.create("wl_keyboard", seat, 1)
        conn.roundtrip()
        keymap = conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == WL_KEYBOARD_KEYMAP)
        keys = VirtualKeyboard(conn, seat, keymap)
        pointer = VirtualPointer(conn, output)
        moved = []
        for index in reversed(range(1, count)):
            spot = kiln_position(index, output)
            grab = _visible_point((*spot, *window), moved)
            if grab is None:
                raise RuntimeError(f"window {index} at {spot} has no uncovered point to grab")
            end = (grab[0] + centre[0] - spot[0], grab[1] + centre[1] - spot[1])
            keys.hold(SUPER)
            pointer.drag(grab, end)
            keys.hold(0)
            moved.append((*centre, *window))
        # The pointer leaves the windows (sway's stays where it started): its cursor is not composed over them.
        pointer.move(output[0] - 1, output[1] - 1)
        pointer.destroy()
    return centre
