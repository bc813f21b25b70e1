#!/usr/bin/env python3
"""No EGL driver (glvnd told of no vendor library): kiln cannot make its renderer, says so in one line and exits 1,
never a crash; the same with a warm cache, whose display profile would let EGL wait."""
from pathlib import Path

from oneshot import check_no_crash, kiln_lines, run_kiln, scratch
from kiln_harness import check, run_test


def main():
    with scratch() as tmp:
        warm = run_kiln(tmp, ["-s", "true", "--exit-with-startup"])
        check(warm.returncode == 0, f"with EGL, kiln starts and fills its cache (exit {warm.returncode})")
        no_vendor = {"__EGL_VENDOR_LIBRARY_FILENAMES": str(Path(tmp) / "no-such-vendor.json")}
        for what, env in (("a cold cache", dict(no_vendor, XDG_CACHE_HOME=str(Path(tmp) / "cold"))),
                          ("a warm cache", no_vendor)):
            result = run_kiln(tmp, ["-s", "true", "--exit-with-startup"], env=env)
            check_no_crash(result, f"no EGL, {what}")
            check(result.returncode == 1, f"no EGL, {what}: kiln exits 1 (got {result.returncode})")
            lines = kiln_lines(result, "EGL")
            check(len(lines) == 1 and "cannot create kiln's renderer" in lines[0],
                  f"no EGL, {what}: one line says kiln has no renderer ({lines})")


run_test(main)
