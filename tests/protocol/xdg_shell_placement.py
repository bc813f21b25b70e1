#!/usr/bin/env python3
"""Where kiln places new xdg-shell windows on headless kiln (640x480): twenty windows each inside the output where
no other opened, a smaller second window not hidden on the first (scripts/run's two demos), the window geometry
(not the buffer with its shadow) centred, a window larger than the output asked to fit it, and a dialog centred on
its parent."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check  # noqa: E402
from wayland_wire import Connection  # noqa: E402
from xdg_shell_client import OUTPUT_H, OUTPUT_W, run_cases, wait_box, wait_box_sized, Window  # noqa: E402


def placement_of_twenty(kiln):
    with Connection(kiln.client_env) as conn:
        spots = []
        for i in range(20):
            color = 0xff000000 | (0x10 + i * 9) << 16 | (0xf0 - i * 7) << 8 | 0x40 + i * 5
            window = Window(conn, f"window {i}")
            window.show(200, 150, color)
            box = wait_box_sized(kiln, color, 200, 150, f"window {i} is on screen, whole")
            inside = box[0] >= 0 and box[1] >= 0 and box[2] <= OUTPUT_W and box[3] <= OUTPUT_H
            check(inside and (box[0], box[1]) not in spots,
                  f"window {i} opens inside the output at {box[:2]}, where no other window opened")
            spots.append((box[0], box[1]))
        check(spots[0] == ((OUTPUT_W - 200) // 2, (OUTPUT_H - 150) // 2), f"the first one is centred ({spots[0]})")


def smaller_second_window(kiln):
    """Centred, a 200x150 window would sit 50 px inside a 300x220 one: both must stay in sight."""
    with Connection(kiln.client_env) as conn:
        first = Window(conn, "first")
        first.show(300, 220, 0xff2060a0)
        a = wait_box_sized(kiln, 0xff2060a0, 300, 220, "the first window is on screen, whole")
        second = Window(conn, "second")
        second.show(200, 150, 0xffa06020)
        b = wait_box_sized(kiln, 0xffa06020, 200, 150, "the second window is on screen, whole")
        step = 32  # placement's cascade step
        hidden = b[0] > a[0] - step and b[1] > a[1] - step and b[2] < a[2] + step and b[3] < a[3] + step
        check(not hidden, f"the second window {b} shows at least a cascade step beyond the first {a}")


def window_geometry_placement(kiln):
    with Connection(kiln.client_env) as conn:
        window = Window(conn, "with a shadow")
        # A 240x190 buffer whose window is the 200x150 inside a 20-pixel shadow.
        window.show(240, 190, 0xff101010, geometry=(20, 20, 200, 150), inner=(20, 20, 200, 150, 0xff40a0e0))
        x, y = (OUTPUT_W - 200) // 2, (OUTPUT_H - 150) // 2
        wait_box(kiln, 0xff40a0e0, (x, y, x + 200, y + 150),
                 "the window geometry, not the buffer with its shadow, is what is centred")


def larger_than_the_output(kiln):
    with Connection(kiln.client_env) as conn:
        window = Window(conn, "too large")
        window.show(900, 700, 0xffe0a020)
        width, height, _ = window.next_configure()
        check((width, height) == (OUTPUT_W, OUTPUT_H),
              f"a 900x700 window on a 640x480 output is asked to be {width}x{height}")
        window.draw(width, height, 0xffe0a020)
        wait_box(kiln, 0xffe0a020, (0, 0, OUTPUT_W, OUTPUT_H), "and once it is, it lies inside the output")


def dialog_on_parent(kiln):
    with Connection(kiln.client_env) as conn:
        first = Window(conn, "first")
        first.show(300, 200, 0xff204060)
        parent = Window(conn, "parent")
        parent.show(300, 200, 0xff602040)
        box = wait_box_sized(kiln, 0xff602040, 300, 200, "the parent is on screen")
        dialog = Window(conn, "dialog")
        conn.send(dialog.toplevel, 1, ("o", parent.toplevel))  # set_parent
        dialog.show(100, 80, 0xff40e060)
        x, y = box[0] + 100, box[1] + 60
        wait_box(kiln, 0xff40e060, (x, y, x + 100, y + 80), "a dialog opens centred on its parent")


if __name__ == "__main__":
    run_cases([placement_of_twenty, smaller_second_window, window_geometry_placement, larger_than_the_output, dialog_on_parent])
