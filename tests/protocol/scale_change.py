#!/usr/bin/env python3
"""An output's scale at start and changed at run time, by wlr-output-management (wlr-randr) and by a kiln.ini
reload: a window's client is told each new preferred scale (wp_fractional_scale_v1) and wl_output's scale and done;
the default cursor is drawn pixel for pixel as the xcursor theme's own image of the size nearest 24 x scale (24 px
at 1, 32 at 1.5, 48 at 1.75: not a 24 px image scaled up) and is drawn again from the theme at each change."""
import os
import signal
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test, skip  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402
from xcursor_file import best_size, drawn_exactly, drawn_near, theme_cursor  # noqa: E402

THEME = "Adwaita"
SIZE = (960, 720)  # output pixels
POINT = (320, 240)  # logical; whole output pixels at 1, 1.25, 1.5 and 1.75


class Watcher:
    """A client with a mapped window and a fractional-scale object on it, and wl_output bound."""

    def __init__(self, conn):
        self.conn = conn
        self.output = conn.bind("wl_output", 2)
        window = Toplevel(conn, "scale change")
        self.fractional = conn.create("wp_fractional_scale_v1", conn.bind("wp_fractional_scale_manager_v1", 1), 1,
                                      ("o", window.surface))
        window.commit()
        window.map(100, 80)
        conn.roundtrip()
        self.window = window

    def told(self, what):
        """(preferred scales in 120ths, wl_output scales, wl_output done count) since the last call, once a preferred
        scale has come."""
        self.conn.dispatch_until(lambda e: e.obj == self.fractional and e.opcode == 0, timeout=10)
        self.conn.roundtrip()
        return ([e.args("u")[0] for e in self.conn.take(self.fractional, 0)],
                [e.args("i")[0] for e in self.conn.take(self.output, 3)], len(self.conn.take(self.output, 2)))


def cursor_drawn(kiln, left_ptr, scale):
    nominal = best_size(left_ptr, int(24 * scale))
    point = (round(POINT[0] * scale), round(POINT[1] * scale))
    try:
        at = kiln.wait_for(lambda: drawn_near(kiln.screenshot(), left_ptr, nominal, point),
                           f"the theme's {nominal} px arrow at {point}")
    except AssertionError:
        wrong, spill = drawn_exactly(kiln.screenshot(), left_ptr, nominal, point)
        check(False, f"scale {scale}: the cursor is the theme's {nominal} px left_ptr pixel for pixel, hotspot on "
                     f"{point} ({wrong} pixels differ, {spill} drawn outside it)")
    check(True, f"scale {scale}: the cursor is the theme's {nominal} px left_ptr pixel for pixel, its hotspot on "
                f"output pixel {at}, nothing drawn around it")


def move_pointer(conn, scale):
    # The layout's logical size, as wlroots truncates it (960 / 1.75 = 548): absolute motion spans exactly it.
    VirtualPointer(conn, (int(SIZE[0] / scale), int(SIZE[1] / scale))).move(*POINT)


def main():
    need("grim")
    need("wlr-randr")
    left_ptr = theme_cursor(THEME, "left_ptr")
    if not left_ptr:
        skip(f"the {THEME} cursor theme is not installed (adwaita-icon-theme)")
    with tempfile.TemporaryDirectory(prefix="kiln-scale-change-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text("[output HEADLESS-1]\nscale=1.5\n")
        env = {"XCURSOR_THEME": THEME, "XCURSOR_SIZE": "24"}
        with Kiln("--config", str(config), size=f"{SIZE[0]}x{SIZE[1]}", env=env) as kiln:
            with Connection(kiln.client_env) as conn:
                move_pointer(conn, 1.5)
                cursor_drawn(kiln, left_ptr, 1.5)

        config.write_text("[output HEADLESS-1]\nscale=1\n")
        with Kiln("--config", str(config), size=f"{SIZE[0]}x{SIZE[1]}", env=env) as kiln:
            with Connection(kiln.client_env) as conn, Connection(kiln.client_env) as mover:
                watcher = Watcher(conn)
                check(watcher.told("start")[0] == [120], "at scale 1 the window's client is told 120")
                move_pointer(mover, 1)
                cursor_drawn(kiln, left_ptr, 1)

                result = kiln.run(["wlr-randr", "--output", "HEADLESS-1", "--scale", "1.5"])
                check(result.returncode == 0, f"wlr-randr --scale 1.5 succeeds ({result.stdout.strip()})")
                preferred, scales, done = watcher.told("wlr-randr")
                check(preferred == [180], f"wlr-output-management 1 -> 1.5: the window's client is told 180 ({preferred})")
                check(scales == [2] and done >= 1, f"and wl_output.scale 2, then done ({scales}, {done} done)")
                move_pointer(mover, 1.5)
                cursor_drawn(kiln, left_ptr, 1.5)

                config.write_text("[output HEADLESS-1]\nscale=1.75\n")
                os.kill(kiln.proc.pid, signal.SIGHUP)
                preferred, scales, done = watcher.told("reload")
                check(preferred == [210], f"kiln.ini reload 1.5 -> 1.75: the client is told 210 ({preferred})")
                check(done >= 1, f"and wl_output's done ({scales}, {done} done)")
                move_pointer(mover, 1.75)
                cursor_drawn(kiln, left_ptr, 1.75)

                config.write_text("[output HEADLESS-1]\nscale=1\n")
                os.kill(kiln.proc.pid, signal.SIGHUP)
                preferred, scales, done = watcher.told("reload")
                check(preferred == [120] and scales == [1] and done >= 1,
                      f"a reload back to 1: told 120, wl_output.scale 1, done ({preferred}, {scales}, {done})")
                move_pointer(mover, 1)
                cursor_drawn(kiln, left_ptr, 1)
            check(kiln.alive(), "kiln is alive")


run_test(main)
