#!/usr/bin/env python3
"""--config naming a file that is missing, unreadable (a folder; a mode-000 file when not root) or 300 KB of random
bytes: one warning line names the file and why, and kiln starts with its defaults and draws."""
import os
import random
import re
from pathlib import Path

from oneshot import DRAW_THREE_FRAMES, check_no_crash, kiln_lines, run_kiln, scratch
from kiln_harness import check, run_test


def starts_with_one_warning(tmp, config, why, what):
    result = run_kiln(tmp, ["--config", str(config), "-s", DRAW_THREE_FRAMES, "--exit-with-startup"])
    check_no_crash(result, what)
    check(result.returncode == 0, f"{what}: kiln starts and a client draws three frames (exit {result.returncode})")
    warnings = kiln_lines(result, re.escape(str(config)))
    check(len(warnings) == 1 and why in warnings[0], f"{what}: one warning says {why!r} ({warnings[:3]}, "
          f"{len(warnings)} in all)")


def main():
    with scratch() as tmp:
        tmp_path = Path(tmp)
        starts_with_one_warning(tmp, tmp_path / "missing.ini", "cannot read: No such file or directory",
                                "a missing file")
        folder = tmp_path / "folder.ini"
        folder.mkdir()
        starts_with_one_warning(tmp, folder, "is a directory", "a folder")
        if os.geteuid() != 0:
            locked = tmp_path / "locked.ini"
            locked.write_text("[output]\n")
            locked.chmod(0)
            starts_with_one_warning(tmp, locked, "cannot read: Permission denied", "a mode-000 file")
        else:
            print("skip: root reads a mode-000 file; the folder stands for an unreadable file")
        noise = tmp_path / "noise.ini"
        noise.write_bytes(random.Random(17).randbytes(300 * 1024))
        starts_with_one_warning(tmp, noise, "not a text file", "300 KB of random bytes")


run_test(main)
