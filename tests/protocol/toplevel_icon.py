#!/usr/bin/env python3
"""xdg_toplevel_icon_manager_v1 on headless kiln: the manager announces the size kiln draws icons at; an icon set
from a wl_shm buffer shows at the left of kiln's server-side title bar from the toplevel's next commit (not before),
stays when the icon object is destroyed, goes with set_icon(null); an icon with a name alone draws nothing (kiln
resolves no icon names). Errors: a non-square or non-shm buffer is invalid_buffer, changing an assigned icon is
immutable, destroying a buffer before its icon is no_buffer."""
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from decoration_pixels import BORDER, TITLE  # noqa: E402
from kiln_harness import Kiln, check, rgb, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel, expect_protocol_error, shm_buffer  # noqa: E402

MANAGER = "xdg_toplevel_icon_manager_v1"
ICON_SIZE = 16  # ServerDecoration's title bar (24 - 4) less 2 pixels above and below
WINDOW = 0xff22aa44
WINDOW_RGB = rgb("22aa44")
GREEN, MAGENTA = 0xff00ff00, 0xffff00ff  # icon colours no decoration uses
ARGB8888 = 0
INVALID_BUFFER, IMMUTABLE, NO_BUFFER = 1, 2, 3


def create_icon(conn, manager):
    return conn.create("xdg_toplevel_icon_v1", manager, 1)


def add_buffer(conn, icon, buffer, scale=1):
    conn.send(icon, 2, ("o", buffer), ("i", scale))


def set_icon(conn, manager, toplevel, icon):
    conn.send(manager, 2, ("o", toplevel), ("o", icon))


def icon_pixels(shot, box, colour):
    """Pixels of `colour` at the left end of the title bar above the window `box`."""
    x0, y0, _, _ = box
    return sum(1 for y in range(y0 - TITLE + BORDER, y0) for x in range(x0 - BORDER, x0 + 40)
               if shot.at(x, y) == rgb(f"{colour & 0xffffff:06x}"))


def shown(conn, kiln, window, box, manager, icon, colour, what, expect):
    """Sets `icon` (None: null) and commits; waits until the title bar has `expect` pixels of `colour` or none."""
    set_icon(conn, manager, window.toplevel, icon or 0)
    conn.roundtrip()
    window.commit()
    conn.roundtrip()
    if expect:
        kiln.wait_for(lambda: icon_pixels(kiln.screenshot(), box, colour) >= expect, what)
    else:
        kiln.wait_for(lambda: icon_pixels(kiln.screenshot(), box, colour) == 0, what)
    check(True, what)


def behaviour(kiln):
    with Connection(kiln.client_env) as conn:
        manager = conn.bind(MANAGER, 1)
        conn.roundtrip()
        sizes = [e.args("i")[0] for e in conn.take(manager, 0)]
        check(sizes == [ICON_SIZE] and len(conn.take(manager, 1)) == 1,
              f"the manager announces icon_size {ICON_SIZE} and done ({sizes})")

        window = Toplevel(conn, "")  # no title: the icon is all the title bar shows
        decorations = conn.bind("zxdg_decoration_manager_v1", 1)
        decoration = conn.create("zxdg_toplevel_decoration_v1", decorations, 1, ("o", window.toplevel))
        conn.send(decoration, 1, ("u", 2))  # set_mode server_side
        green = create_icon(conn, manager)
        add_buffer(conn, green, shm_buffer(conn, 32, 32, GREEN, shm_format=ARGB8888))
        add_buffer(conn, green, shm_buffer(conn, 64, 64, MAGENTA, shm_format=ARGB8888))  # farther from 16: unused
        conn.send(green, 1, ("s", "utilities-terminal"))  # set_name: not resolved, the pixels are used
        set_icon(conn, manager, window.toplevel, green)
        window.commit()
        window.map(200, 100, color=WINDOW)
        kiln.wait_for(lambda: kiln.screenshot().count(WINDOW_RGB, tolerance=0) >= 200 * 100, "the window")
        box = kiln.screenshot().bounding_box(WINDOW_RGB, tolerance=0)
        kiln.wait_for(lambda: icon_pixels(kiln.screenshot(), box, GREEN) >= 12 * 12,
                      "the icon on the title bar")
        shot = kiln.screenshot()
        count = icon_pixels(shot, box, GREEN)
        check(count <= ICON_SIZE * ICON_SIZE and icon_pixels(shot, box, MAGENTA) == 0,
              f"the 32-pixel buffer, nearest the announced size, shows {ICON_SIZE} pixels square on the title bar "
              f"({count} icon pixels)")

        conn.send(green, 0)  # destroy the icon object: the window keeps its icon
        window.commit()
        conn.roundtrip()
        check(icon_pixels(kiln.screenshot(), box, GREEN) == count, "the icon stays after its object is destroyed")

        magenta = create_icon(conn, manager)
        add_buffer(conn, magenta, shm_buffer(conn, 16, 16, MAGENTA, shm_format=ARGB8888))
        set_icon(conn, manager, window.toplevel, magenta)
        conn.roundtrip()
        shot = kiln.screenshot()
        check(icon_pixels(shot, box, MAGENTA) == 0 and icon_pixels(shot, box, GREEN) == count,
              "set_icon waits for the toplevel's commit")
        window.commit()
        conn.roundtrip()
        kiln.wait_for(lambda: icon_pixels(kiln.screenshot(), box, MAGENTA) >= 12 * 12, "the new icon after commit")
        check(icon_pixels(kiln.screenshot(), box, GREEN) == 0, "the new icon replaces the old at the commit")

        shown(conn, kiln, window, box, manager, None, MAGENTA, "set_icon(null) takes the icon away", 0)
        shown(conn, kiln, window, box, manager, magenta, MAGENTA, "an assigned icon may be set again", 12 * 12)
        named = create_icon(conn, manager)
        conn.send(named, 1, ("s", "utilities-terminal"))
        shown(conn, kiln, window, box, manager, named, MAGENTA,
              "an icon with a name alone leaves the window with no icon (kiln resolves no names)", 0)


def protocol_error(kiln, what, build, code):
    with Connection(kiln.client_env) as conn:
        manager = conn.bind(MANAGER, 1)
        icon = create_icon(conn, manager)
        build(conn, manager, icon)
        error = expect_protocol_error(conn)
        check(f"on xdg_toplevel_icon_v1@{icon}: {code} " in str(error), f"{what} ({error})")


def errors(kiln):
    protocol_error(kiln, "a buffer that is not square is invalid_buffer",
                   lambda conn, manager, icon: add_buffer(conn, icon, shm_buffer(conn, 32, 16, GREEN)), INVALID_BUFFER)

    def single_pixel(conn, manager, icon):
        pixels = conn.bind("wp_single_pixel_buffer_manager_v1", 1)
        add_buffer(conn, icon, conn.create("wl_buffer", pixels, 1, ("u", 0), ("u", 0), ("u", 0), ("u", 0)))
    protocol_error(kiln, "a buffer that is not wl_shm is invalid_buffer", single_pixel, INVALID_BUFFER)
    protocol_error(kiln, "a scale below 1 is invalid_buffer",
                   lambda conn, manager, icon: add_buffer(conn, icon, shm_buffer(conn, 16, 16, GREEN), 0),
                   INVALID_BUFFER)

    def assigned(conn, manager, icon):
        window = Toplevel(conn)
        add_buffer(conn, icon, shm_buffer(conn, 16, 16, GREEN))
        set_icon(conn, manager, window.toplevel, icon)
        conn.roundtrip()
        return window
    protocol_error(kiln, "set_name on an assigned icon is immutable",
                   lambda conn, manager, icon: (assigned(conn, manager, icon), conn.send(icon, 1, ("s", "x"))),
                   IMMUTABLE)
    protocol_error(kiln, "add_buffer on an assigned icon is immutable",
                   lambda conn, manager, icon: (assigned(conn, manager, icon),
                                                add_buffer(conn, icon, shm_buffer(conn, 16, 16, GREEN))), IMMUTABLE)

    def destroy_buffer(conn, manager, icon):
        buffer = shm_buffer(conn, 16, 16, GREEN)
        add_buffer(conn, icon, buffer)
        conn.roundtrip()
        conn.send(buffer, 0)  # wl_buffer.destroy while the icon lives
    protocol_error(kiln, "a buffer destroyed before its icon is no_buffer", destroy_buffer, NO_BUFFER)

    with Connection(kiln.client_env) as conn:
        manager = conn.bind(MANAGER, 1)
        icon = create_icon(conn, manager)
        buffer = shm_buffer(conn, 16, 16, GREEN)
        add_buffer(conn, icon, buffer)
        conn.send(icon, 0)  # the icon first, then its buffer: fine
        conn.send(buffer, 0)
        conn.roundtrip()
        check(True, "a buffer destroyed after its icon is no error")


def main():
    scratch = tempfile.mkdtemp(prefix="kiln-icon-")
    try:
        ini = Path(scratch) / "kiln.ini"
        ini.write_text("[decorations]\nmode=server\n")
        with Kiln("--config", str(ini), "--debug-full-redraw") as kiln:
            check(MANAGER in Connection(kiln.client_env).globals, f"kiln offers {MANAGER}")
            if os.environ.get("KILN_TITLE_TEXT", "1") == "1":
                behaviour(kiln)
            else:
                print("skip: kiln was built without Pango: its title bar draws no icon")
            errors(kiln)
            check(kiln.alive(), "kiln runs on after the clients' protocol errors")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


run_test(main)
