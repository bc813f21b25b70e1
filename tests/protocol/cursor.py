#!/usr/bin/env python3
"""Cursors on headless kiln: nothing is drawn until the pointer is used; then the theme's arrow (XCURSOR_THEME,
XCURSOR_SIZE) over the desktop and over a window whose client set no cursor; a client's cursor surface is drawn at
the pointer minus its hotspot and follows the pointer; a null cursor hides it."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from cursor_pixels import drawn_near  # noqa: E402
from kiln_harness import Kiln, check, need, run_test, skip  # noqa: E402
from wayland_wire import ARGB8888, Connection, Toplevel, shm_buffer  # noqa: E402

WIDTH, HEIGHT = 640, 480
BLACK = (0, 0, 0)  # kiln's default background
WINDOW = (0x33, 0x66, 0x99)  # Toplevel.map's colour
MAGENTA = (255, 0, 255)
THEME = "Adwaita"


def theme_installed():
    return any((Path(d) / THEME / "cursors" / "left_ptr").exists()
               for d in (Path.home() / ".icons", Path("/usr/share/icons"), Path("/usr/share/pixmaps")))


class VirtualPointer:
    def __init__(self, kiln):
        self.conn = Connection(kiln.client_env)
        seat = self.conn.bind("wl_seat", 5)
        manager = self.conn.bind("zwlr_virtual_pointer_manager_v1", 1)
        self.obj = self.conn.new_id("zwlr_virtual_pointer_v1")
        self.conn.send(manager, 0, ("o", seat), ("n", self.obj))

    def move_to(self, x, y):
        self.conn.send(self.obj, 1, ("u", 1), ("u", x), ("u", y), ("u", WIDTH), ("u", HEIGHT))
        self.conn.send(self.obj, 4)  # frame
        self.conn.roundtrip()


def wait_drawn(kiln, point, background, what):
    return kiln.wait_for(lambda: drawn_near(kiln.screenshot(), point, background), what)


def wait_clear(kiln, point, background, what):
    kiln.wait_for(lambda: drawn_near(kiln.screenshot(), point, background) is None, what)


def cursor_surface(conn, size, argb):
    """A wl_surface with a one-colour ARGB buffer committed, for wl_pointer.set_cursor."""
    compositor = conn.bind("wl_compositor", 4)
    surface = conn.create("wl_surface", compositor, 0)
    buffer = shm_buffer(conn, size, size, argb, ARGB8888)
    conn.send(surface, 1, ("o", buffer), ("i", 0), ("i", 0))
    conn.send(surface, 2, ("i", 0), ("i", 0), ("i", size), ("i", size))
    conn.send(surface, 6)
    return surface


def default_arrow(size):
    """The arrow's box on the bare desktop with XCURSOR_SIZE=size; also checks nothing shows before the pointer
    moves."""
    with Kiln(size=f"{WIDTH}x{HEIGHT}", env={"XCURSOR_THEME": THEME, "XCURSOR_SIZE": str(size)}) as kiln:
        pointer = VirtualPointer(kiln)
        shot = kiln.screenshot()
        check(shot.distinct_colors(step=1) == {BLACK}, "before the pointer is used nothing but the background shows")
        point = (300, 200)
        pointer.move_to(*point)
        box = wait_drawn(kiln, point, BLACK, "the default arrow on the desktop")
        check(box[0] <= point[0] < box[2] and box[1] <= point[1] < box[3] and box[0] >= point[0] - size and
              box[1] >= point[1] - size, f"with XCURSOR_SIZE={size} the theme's arrow is drawn at the pointer {box}")
        return box


def main():
    need("grim")
    if not theme_installed():
        skip(f"the {THEME} cursor theme is not installed (adwaita-icon-theme)")
    small, large = default_arrow(24), default_arrow(48)
    check(large[3] - large[1] > small[3] - small[1] + 8,
          f"XCURSOR_SIZE=48 draws a larger arrow than 24 ({large} vs {small})")

    with Kiln(size=f"{WIDTH}x{HEIGHT}", env={"XCURSOR_THEME": THEME, "XCURSOR_SIZE": "24"}) as kiln:
        pointer = VirtualPointer(kiln)
        with Connection(kiln.client_env) as conn:
            seat = conn.bind("wl_seat", 5)
            wl_pointer = conn.create("wl_pointer", seat, 0)
            window = Toplevel(conn, "cursor test")
            window.commit()
            window.map(400, 300)
            box = kiln.wait_for(lambda: kiln.screenshot().bounding_box(WINDOW), "the window on screen")
            point = ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)
            pointer.move_to(*point)
            enter = conn.dispatch_until(lambda e: e.obj == wl_pointer and e.opcode == 0)
            serial = enter.args("u")[0]
            wait_drawn(kiln, point, WINDOW, "the default arrow over the window")
            check(True, "over a window whose client set no cursor, the default arrow is drawn")

            surface = cursor_surface(conn, 16, 0xffff00ff)
            conn.send(wl_pointer, 0, ("u", serial), ("o", surface), ("i", 4), ("i", 6))  # set_cursor
            conn.roundtrip()
            expected = (point[0] - 4, point[1] - 6, point[0] + 12, point[1] + 10)
            got = kiln.wait_for(lambda: (b := kiln.screenshot().bounding_box(MAGENTA)) == expected and b,
                                f"the client's cursor at {expected}", timeout=5)
            check(got == expected, f"the client's 16x16 cursor is drawn at the pointer minus its hotspot (4, 6): {got}")
            moved = (point[0] + 30, point[1] + 20)
            pointer.move_to(*moved)
            expected = (moved[0] - 4, moved[1] - 6, moved[0] + 12, moved[1] + 10)
            kiln.wait_for(lambda: kiln.screenshot().bounding_box(MAGENTA) == expected, "the cursor to follow")
            check(True, f"it follows the pointer to {moved}")

            conn.send(wl_pointer, 0, ("u", serial), ("o", 0), ("i", 0), ("i", 0))  # set_cursor(null): hidden
            conn.roundtrip()
            wait_clear(kiln, moved, WINDOW, "the cursor to disappear")
            check(True, "a null cursor surface hides the cursor over the window")

            pointer.move_to(5, 5)  # off the window: the desktop's arrow again
            conn.dispatch_until(lambda e: e.obj == wl_pointer and e.opcode == 1)
            wait_drawn(kiln, (5, 5), BLACK, "the default arrow back on the desktop")
            check(True, "leaving the window brings back the default arrow")
        check(kiln.alive(), "kiln is still running")


run_test(main)
