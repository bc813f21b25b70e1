#!/usr/bin/env python3
"""kiln.ini [keyboard] reaches clients: the X11 backend's keyboard sends keymap_layout=de and the repeat settings
in wl_keyboard.keymap and repeat_info; without the file the layout is xkbcommon's default."""
import os
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402

KEYMAP_CLIENT = os.environ.get("KILN_KEYMAP_CLIENT", "")


@contextmanager
def xvfb():
    """An Xvfb on a free-ish display number, stopped when the block ends."""
    number = 40 + (os.getpid() + 7) % 50
    server = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "800x600x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        socket = Path(f"/tmp/.X11-unix/X{number}")
        for _ in range(100):
            if socket.exists():
                break
            time.sleep(0.05)
        check(socket.exists(), f"Xvfb listens on :{number}")
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)


def keymap_seen(display, *args):
    """(repeat line, the keymap's group names) that a client of kiln on X11 gets, and kiln's log."""
    env = {"DISPLAY": display}
    # xkbcommon's own defaults come from these: the test wants kiln.ini's, or xkbcommon's built-in ones.
    for name in ("XKB_DEFAULT_RULES", "XKB_DEFAULT_MODEL", "XKB_DEFAULT_LAYOUT", "XKB_DEFAULT_VARIANT",
                 "XKB_DEFAULT_OPTIONS"):
        os.environ.pop(name, None)
    with Kiln(*args, backend="x11", env=env, stats=False) as kiln:
        result = kiln.run([KEYMAP_CLIENT], timeout=20)
        check(result.returncode == 0, f"the client got a keymap and repeat info ({result.stdout.splitlines()[0] if result.stdout else result.stdout})")
        lines = result.stdout.splitlines()
        # xkbcommon writes the layouts' names into the keymap's symbols: name[Group1]="German (no dead keys)";
        groups = " ".join(line.strip() for line in lines if line.strip().lower().startswith("name[group"))
        status, _ = kiln.stop()
        check(status == 0, f"kiln exits 0 (got {status})")
        return lines[0], groups, kiln.logs()


def main():
    need("Xvfb")
    check(bool(KEYMAP_CLIENT), "KILN_KEYMAP_CLIENT names the test client")
    with tempfile.TemporaryDirectory(prefix="kiln-keymap-") as tmp, xvfb() as display:
        config = Path(tmp) / "kiln.ini"
        config.write_text("[keyboard]\nkeymap_layout=de\nkeymap_variant=nodeadkeys\nrepeat-rate=33\n"
                          "repeat-delay=444\n")
        repeat, groups, _ = keymap_seen(display, "--config", str(config))
        check(repeat == "repeat 33 444", f"repeat-rate and repeat-delay reach wl_keyboard.repeat_info ({repeat!r})")
        check('"German (no dead keys)"' in groups,
              f"keymap_layout=de and keymap_variant=nodeadkeys reach wl_keyboard.keymap ({groups})")

        empty = Path(tmp) / "empty.ini"
        empty.write_text("")
        repeat, groups, _ = keymap_seen(display, "--config", str(empty))
        check(repeat == "repeat 25 600", f"without [keyboard] the repeat is kiln's default ({repeat!r})")
        check(groups and "German" not in groups, f"without [keyboard] the layout is xkbcommon's default ({groups})")

        unknown = Path(tmp) / "unknown.ini"
        unknown.write_text("[keyboard]\nkeymap_layout=no-such-layout\n")
        repeat, groups, log = keymap_seen(display, "--config", str(unknown))
        check("English (US)" in groups, f"a layout xkbcommon lacks falls back to its default ({groups})")
        check(log.count("xkbcommon cannot make a keymap") == 1, "and kiln says so, once")


run_test(main)
