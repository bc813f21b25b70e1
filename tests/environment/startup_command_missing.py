#!/usr/bin/env python3
"""A startup command that does not exist (or cannot be run) under --exit-with-startup: kiln runs, the shell's status
(127 not found, 126 not executable) is kiln's exit status, and the shell's line says which command."""
from pathlib import Path

from oneshot import check_no_crash, run_kiln, scratch
from kiln_harness import check, run_test


def main():
    with scratch() as tmp:
        missing = str(Path(tmp) / "no-such-program")
        result = run_kiln(tmp, ["-s", missing, "--exit-with-startup"])
        check_no_crash(result, "a missing command")
        check(result.returncode == 127, f"a missing command: kiln passes on its status 127 (got {result.returncode})")
        check(missing in result.stderr and "not found" in result.stderr, "and the shell names it as not found")
        plain = Path(tmp) / "not-executable"
        plain.write_text("echo never\n")
        plain.chmod(0o644)
        result = run_kiln(tmp, ["-s", str(plain), "--exit-with-startup"])
        check_no_crash(result, "a command that is not executable")
        check(result.returncode == 126,
              f"a command that is not executable: kiln passes on its status 126 (got {result.returncode})")


run_test(main)
