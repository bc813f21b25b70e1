#!/usr/bin/env python3
"""wp_single_pixel_buffer_manager_v1 on headless kiln: a one-pixel buffer scaled up with wp_viewporter fills the
window with its colour (alpha premultiplied, as the protocol says), and it is released once replaced."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402

FULL = 0xffffffff
HALF = 0x80000000


def create_pixel(conn, manager, r, g, b, a):
    return conn.create("wl_buffer", manager, 1, ("u", r), ("u", g), ("u", b), ("u", a))  # create_u32_rgba_buffer


def show(conn, window, buffer):
    conn.send(window.surface, 1, ("o", buffer), ("i", 0), ("i", 0))  # attach
    conn.send(window.surface, 2, ("i", 0), ("i", 0), ("i", 1), ("i", 1))  # damage (surface coordinates: all of it)
    window.commit()
    conn.roundtrip()


def main():
    need("grim")
    with Kiln() as kiln:  # 640x480, black where no window is
        with Connection(kiln.client_env) as conn:
            check("wp_single_pixel_buffer_manager_v1" in conn.globals, "kiln offers wp_single_pixel_buffer_manager_v1")
            manager = conn.bind("wp_single_pixel_buffer_manager_v1", 1)
            viewporter = conn.bind("wp_viewporter", 1)
            window = Toplevel(conn, "single pixel")
            viewport = conn.create("wp_viewport", viewporter, 1, ("o", window.surface))  # get_viewport
            conn.send(viewport, 2, ("i", 200), ("i", 100))  # set_destination
            window.commit()
            window.wait_configure()

            orange = create_pixel(conn, manager, FULL, HALF, 0, FULL)
            show(conn, window, orange)

            def box_of(color):
                return lambda: kiln.screenshot().bounding_box(color, tolerance=2)

            box = kiln.wait_for(box_of((255, 128, 0)), "the single-pixel buffer's colour on screen")
            check((box[2] - box[0], box[3] - box[1]) == (200, 100),
                  f"one orange pixel scaled by wp_viewporter fills the 200x100 window ({box})")

            # Half-transparent red, premultiplied: (0.5, 0, 0, 0.5) over black shows as half red.
            translucent = create_pixel(conn, manager, HALF, 0, 0, HALF)
            show(conn, window, translucent)
            box = kiln.wait_for(box_of((128, 0, 0)), "the translucent pixel's colour on screen")
            check((box[2] - box[0], box[3] - box[1]) == (200, 100),
                  f"a premultiplied half-alpha red blends over the black background as (128, 0, 0) ({box})")
            check(kiln.screenshot().count((255, 128, 0), tolerance=2) == 0, "the orange one is gone")
            conn.dispatch_until(lambda e: e.obj == orange and e.opcode == 0)  # wl_buffer.release
            check(True, "the replaced single-pixel buffer is released")

            conn.send(orange, 0)  # destroy, after its release
            conn.send(manager, 0)  # destroy the manager: buffers made with it live on
            conn.roundtrip()
            check(kiln.screenshot().count((128, 0, 0), tolerance=2) == 200 * 100,
                  "the shown buffer outlives its manager")
        check(kiln.alive(), "kiln runs on after the client leaves")


run_test(main)
