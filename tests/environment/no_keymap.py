#!/usr/bin/env python3
"""Keymaps missing: with no xkeyboard-config (XKB_CONFIG_ROOT naming no folder, or an empty one, and no ~/.xkb)
kiln cannot give its keyboards any keymap, says so in one line and exits 1, never a crash. A [keyboard] layout
xkbcommon does not know falls back to xkbcommon's default keymap with one warning, and clients get that keymap."""
import os
from pathlib import Path

from oneshot import check_no_crash, kiln_lines, run_kiln, scratch
from kiln_harness import Kiln, check, run_test
from wayland_wire import Connection

XKB_V1 = 1  # wl_keyboard.keymap_format.xkb_v1


def no_keymap(tmp, root, what):
    # HOME and XDG_CONFIG_HOME without xkb folders: xkbcommon also looks in ~/.xkb and ~/.config/xkb.
    env = {"XKB_CONFIG_ROOT": str(root), "HOME": str(Path(tmp) / "home")}
    result = run_kiln(tmp, ["-s", "true", "--exit-with-startup"], env=env)
    check_no_crash(result, what)
    check(result.returncode == 1, f"{what}: kiln exits 1 (got {result.returncode})")
    lines = kiln_lines(result, "no keymap")
    check(len(lines) == 1 and str(root) in lines[0], f"{what}: one line says there is no keymap and where it "
          f"looked ({lines})")
    check("xkbcommon:" not in result.stderr, f"{what}: xkbcommon's own lines do not bury it")


def keymap_of_first_keyboard(kiln):
    """The size of the wl_keyboard.keymap a client gets (format xkb_v1), or None."""
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 5)
        keyboard = conn.create("wl_keyboard", seat, 1)  # wl_seat.get_keyboard
        conn.roundtrip()
        for event in conn.take(keyboard, 0):  # wl_keyboard.keymap(format, fd, size): the fd comes apart
            for fd in event.fds:
                os.close(fd)
            fmt, size = event.args("uu")
            return size if fmt == XKB_V1 else None
    return None


def main():
    with scratch() as tmp:
        no_keymap(tmp, Path(tmp) / "no-such-folder", "XKB_CONFIG_ROOT names no folder")
        empty = Path(tmp) / "empty-xkb"
        empty.mkdir()
        no_keymap(tmp, empty, "XKB_CONFIG_ROOT an empty folder")

        config = Path(tmp) / "kiln.ini"
        config.write_text("[keyboard]\nkeymap_layout=no-such-layout\n")
        with Kiln("--config", str(config)) as kiln:
            size = keymap_of_first_keyboard(kiln)
            check(size is not None and size > 1000, f"an unknown layout: a client still gets a keymap ({size} bytes)")
            warnings = [line for line in kiln.logs().splitlines() if "no-such-layout" in line]
            check(len(warnings) == 1 and "using its default" in warnings[0],
                  f"and one warning says the default is used ({warnings})")


if __name__ == "__main__":
    run_test(main)
