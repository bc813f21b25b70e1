#!/usr/bin/env python3
"""wp_alpha_modifier_v1 on headless kiln, in both composition paths (--composition auto, which composes on the CPU
here, and gl): an opaque red subsurface at alpha 0.5 over its blue window shows the blend, purple (so the window
under it is drawn, not culled as under an opaque surface); the factor is double-buffered, 1 shows red, 0 shows the
blue under it, and destroying the object goes back to red at the next commit. Errors: a second object for a surface
is already_constructed; set_multiplier after the surface is gone is no_surface."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test, stat  # noqa: E402
from wayland_wire import Connection, Toplevel, shm_buffer  # noqa: E402
from surface_errors import expect_surface_error  # noqa: E402

MANAGER = "wp_alpha_modifier_v1"
BLUE, RED = (0, 0, 255), (255, 0, 0)
HALF = 0x7fffffff
PURPLE = (128, 0, 127)  # red at 0.5 over blue, premultiplied: about half of each


def count(kiln, colour):
    return kiln.screenshot().count(colour, tolerance=3)


def redraw_window(conn, window):
    """The window under the subsurface damaged whole and committed: kiln draws that area again, subsurface too."""
    conn.send(window.surface, 2, ("i", 0), ("i", 0), ("i", 200), ("i", 200))
    window.commit()
    conn.roundtrip()


def in_mode(mode):
    with Kiln("--composition", mode) as kiln:
        with Connection(kiln.client_env) as conn:
            check(conn.globals.get(MANAGER, (0, 0))[1] == 1, f"kiln offers {MANAGER} version 1")
            manager = conn.bind(MANAGER, 1)
            subcompositor = conn.bind("wl_subcompositor", 1)
            window = Toplevel(conn, "under")
            window.commit()
            window.map(200, 200, color=0xff0000ff)
            child = conn.create("wl_surface", window.compositor, 0)
            sub = conn.create("wl_subsurface", subcompositor, 1, ("o", child), ("o", window.surface))
            conn.send(sub, 5)  # set_desync: the child's commits apply at once
            conn.send(sub, 1, ("i", 50), ("i", 50))  # set_position, applied with the parent's commit
            window.commit()
            modifier = conn.create("wp_alpha_modifier_surface_v1", manager, 1, ("o", child))
            conn.send(modifier, 1, ("u", HALF))  # set_multiplier
            conn.send(child, 1, ("o", shm_buffer(conn, 100, 100, 0xffff0000)), ("i", 0), ("i", 0))  # xrgb: opaque
            conn.send(child, 2, ("i", 0), ("i", 0), ("i", 100), ("i", 100))
            conn.send(child, 6)
            conn.roundtrip()
            kiln.wait_for(lambda: count(kiln, PURPLE) == 100 * 100, f"{mode}: the half-transparent red square")
            check(count(kiln, BLUE) == 200 * 200 - 100 * 100 and count(kiln, RED) == 0,
                  f"{mode}: opaque red at alpha 0.5 over the blue window blends to {PURPLE}; the blue under it is "
                  "drawn")

            conn.send(modifier, 1, ("u", 0xffffffff))
            redraw_window(conn, window)
            check(count(kiln, PURPLE) == 100 * 100, f"{mode}: a new factor waits for the surface's commit")
            conn.send(child, 6)
            kiln.wait_for(lambda: count(kiln, RED) == 100 * 100, f"{mode}: factor 1: red as drawn")
            check(True, f"{mode}: factor 1 shows the surface as drawn (a commit with no damage redraws it)")

            conn.send(modifier, 1, ("u", 0))
            conn.send(child, 6)
            kiln.wait_for(lambda: count(kiln, BLUE) == 200 * 200, f"{mode}: factor 0: only blue")
            check(True, f"{mode}: factor 0 hides the surface; the window under it shows")

            conn.send(modifier, 0)  # destroy: back to opaque at the next commit
            redraw_window(conn, window)
            check(count(kiln, BLUE) == 200 * 200, f"{mode}: destroying the object waits for the commit")
            conn.send(child, 6)
            kiln.wait_for(lambda: count(kiln, RED) == 100 * 100, f"{mode}: red again")
            check(True, f"{mode}: destroying the object reverts to opaque at the next commit")

            again = conn.create("wp_alpha_modifier_surface_v1", manager, 1, ("o", child))
            conn.send(again, 1, ("u", HALF))
            conn.send(child, 6)
            kiln.wait_for(lambda: count(kiln, PURPLE) == 100 * 100, f"{mode}: a new object's factor")
            check(True, f"{mode}: a new object for the surface once the old one is gone")
            status, stats = kiln.stop()
        check(status == 0, f"{mode}: kiln exits cleanly")
        return stat(stats, "frames.composed_on_cpu")


def error(what, build, expected):
    expect_surface_error(what, build, expected, MANAGER)



def main():
    on_cpu = in_mode("auto")
    if on_cpu == 0:
        print("note: --composition auto drew with GL here (hardware GL): the CPU path is not covered")
    else:
        check(True, f"--composition auto composed {on_cpu} frames on the CPU")
    check(in_mode("gl") == 0, "--composition gl composed every frame with GL")

    def twice(conn, manager, surface):
        conn.create("wp_alpha_modifier_surface_v1", manager, 1, ("o", surface))
        conn.create("wp_alpha_modifier_surface_v1", manager, 1, ("o", surface))
        return manager
    error("a second object for a surface is already_constructed", twice, 0)

    def surface_gone(conn, manager, surface):
        obj = conn.create("wp_alpha_modifier_surface_v1", manager, 1, ("o", surface))
        conn.send(surface, 0)  # wl_surface.destroy
        conn.send(obj, 1, ("u", HALF))
        return obj
    error("set_multiplier after the surface is destroyed is no_surface", surface_gone, 0)


run_test(main)
