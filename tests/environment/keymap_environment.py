#!/usr/bin/env python3
"""XKB_DEFAULT_* in kiln's environment: they fill the keymap names kiln.ini's [keyboard] leaves empty, as xkbcommon
does. One xkbcommon refuses (XKB_DEFAULT_LAYOUT=nonexistent stopped kiln before: exit 1, blaming xkeyboard-config) is
one warning line naming the variable, and the keyboard gets a keymap without it; what kiln.ini names wins over the
environment."""
import os
import re

from oneshot import check_no_crash, run_kiln, scratch
from kiln_harness import Kiln, check, run_test
from wayland_wire import Connection

XKB_V1 = 1  # wl_keyboard.keymap_format.xkb_v1
US, GERMAN = "English (US)", "German"  # xkeyboard-config's names of the us and de layouts


def keymap_layout(kiln):
    """The name of the first layout in the keymap a client's wl_keyboard gets, e.g. 'English (US)'."""
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 5)
        keyboard = conn.create("wl_keyboard", seat, 1)
        event = conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 0)  # wl_keyboard.keymap
        fmt, size = event.args("uu")
        fd = event.fds.pop()
        text = os.pread(fd, size, 0).decode(errors="replace")
        os.close(fd)
    check(fmt == XKB_V1, "the keymap is xkb_v1")
    found = re.search(r'name\[group1\]\s*=\s*"([^"]*)"', text, flags=re.IGNORECASE)
    return found.group(1) if found else text[:200]


def warnings(kiln, word):
    return [line for line in kiln.logs().splitlines() if word in line]


def started(what, env, expect_layout, expect_warning=None, args=()):
    """kiln with `env` starts, a client's keymap's first layout is `expect_layout`, and the log has one warning
    naming `expect_warning` (or none about XKB_DEFAULT_*)."""
    with Kiln(*args, env=env) as kiln:
        layout = keymap_layout(kiln)
        check(layout == expect_layout, f"{what}: the keyboard's layout is {expect_layout} ({layout[:200]!r})")
        lines = warnings(kiln, "XKB_DEFAULT_")
        if expect_warning:
            check(len(lines) == 1 and expect_warning in lines[0],
                  f"{what}: one warning names {expect_warning} ({lines})")
        else:
            check(not lines, f"{what}: no warning ({lines})")
        status, _ = kiln.stop()
        check(status == 0, f"{what}: kiln exits 0 (got {status})")


def main():
    env_none = {name: None for name in ("XKB_DEFAULT_RULES", "XKB_DEFAULT_MODEL", "XKB_DEFAULT_LAYOUT",
                                        "XKB_DEFAULT_VARIANT", "XKB_DEFAULT_OPTIONS")}
    with scratch() as tmp:
        # The issue's own run: kiln to the end of a startup command, its status the command's.
        result = run_kiln(tmp, ["-s", "true", "--exit-with-startup"],
                          env=dict(env_none, XKB_DEFAULT_LAYOUT="nonexistent"))
        check_no_crash(result, "XKB_DEFAULT_LAYOUT=nonexistent")
        check(result.returncode == 0, f"XKB_DEFAULT_LAYOUT=nonexistent: kiln starts and exits 0 with its startup "
              f"command (got {result.returncode})")
        config = os.path.join(tmp, "kiln.ini")
        with open(config, "w") as out:
            out.write("[keyboard]\nkeymap_layout=de\n")

        clean = {name: "" for name in env_none}  # the harness's env cannot unset: empty is unset to xkbcommon too
        started("XKB_DEFAULT_LAYOUT=nonexistent", dict(clean, XKB_DEFAULT_LAYOUT="nonexistent"), US,
                "XKB_DEFAULT_LAYOUT='nonexistent'")
        started("XKB_DEFAULT_LAYOUT=de", dict(clean, XKB_DEFAULT_LAYOUT="de"), GERMAN)
        started("XKB_DEFAULT_LAYOUT=de, XKB_DEFAULT_VARIANT=nonexistent",
                dict(clean, XKB_DEFAULT_LAYOUT="de", XKB_DEFAULT_VARIANT="nonexistent"), GERMAN,
                "XKB_DEFAULT_VARIANT='nonexistent'")
        started("XKB_DEFAULT_RULES=nonexistent", dict(clean, XKB_DEFAULT_RULES="nonexistent"), US,
                "XKB_DEFAULT_RULES='nonexistent'")
        started("kiln.ini's layout de over XKB_DEFAULT_LAYOUT=nonexistent",
                dict(clean, XKB_DEFAULT_LAYOUT="nonexistent"), GERMAN, args=("--config", config))


if __name__ == "__main__":
    run_test(main)
