#!/usr/bin/env python3
"""The keymap files go while kiln runs (xkeyboard-config removed, then kiln.ini reloaded with another layout): kiln
says once that it keeps the keymap the keyboard has, stays up, and a new client still gets that keymap."""
import os
import shutil
import signal
from pathlib import Path

from oneshot import scratch
from no_keymap import keymap_of_first_keyboard
from kiln_harness import Kiln, check, run_test, skip

SYSTEM_XKB = Path("/usr/share/X11/xkb")


def main():
    if not (SYSTEM_XKB / "rules" / "evdev").exists():
        skip(f"no xkeyboard-config at {SYSTEM_XKB} to copy")
    with scratch() as tmp:
        xkb = Path(tmp) / "xkb"
        shutil.copytree(SYSTEM_XKB, xkb, symlinks=True)
        home = Path(tmp) / "home"
        home.mkdir()
        config = Path(tmp) / "kiln.ini"
        config.write_text("[keyboard]\nkeymap_layout=us\n")
        with Kiln("--config", str(config), env={"XKB_CONFIG_ROOT": str(xkb), "HOME": str(home)}) as kiln:
            before = keymap_of_first_keyboard(kiln)
            check(before is not None and before > 1000, f"a client gets the us keymap ({before} bytes)")
            shutil.rmtree(xkb)
            config.write_text("[keyboard]\nkeymap_layout=de\n")
            kiln.proc.send_signal(signal.SIGHUP)
            kiln.wait_for(lambda: "keeping the keymap it has" in kiln.logs(), "kiln to say it keeps the keymap")
            lines = [line for line in kiln.logs().splitlines() if "keeping the keymap it has" in line]
            check(len(lines) == 1 and "finds no keymap files" in lines[0], f"one line says why ({lines})")
            check(kiln.alive(), "kiln is still up")
            after = keymap_of_first_keyboard(kiln)
            check(after == before, f"a new client gets the keymap the keyboard kept ({after} bytes)")


run_test(main)
