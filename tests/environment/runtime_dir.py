#!/usr/bin/env python3
"""XDG_RUNTIME_DIR unset, naming a folder that does not exist, or naming a plain file: kiln has nowhere for its
Wayland socket, exits 1 and says why on stderr in one line."""
import re
from pathlib import Path

from oneshot import check_no_crash, kiln_lines, run_kiln, scratch
from kiln_harness import check, run_test


def refused(tmp, runtime, reason, what):
    result = run_kiln(tmp, ["-s", "true", "--exit-with-startup"], env={"XDG_RUNTIME_DIR": runtime})
    check_no_crash(result, what)
    check(result.returncode == 1, f"{what}: kiln exits 1 (got {result.returncode})")
    lines = kiln_lines(result, reason)
    check(len(lines) == 1, f"{what}: one line says why ({reason!r} in {lines})")


def main():
    with scratch() as tmp:
        refused(tmp, None, r"XDG_RUNTIME_DIR is not set", "XDG_RUNTIME_DIR unset")
        missing = str(Path(tmp) / "no-such-dir")
        refused(tmp, missing, re.escape(f"XDG_RUNTIME_DIR={missing}: No such file or directory"),
                "XDG_RUNTIME_DIR missing")
        plain = Path(tmp) / "a-file"
        plain.write_text("")
        refused(tmp, str(plain), re.escape(f"XDG_RUNTIME_DIR={plain}: not a directory"), "XDG_RUNTIME_DIR a file")


run_test(main)
