#!/usr/bin/env python3
"""HOME unset, and with it every XDG_*_HOME kiln could fall back from: kiln starts without a cache, kiln.ini or
state folder, draws, and writes nothing where it was started."""
from pathlib import Path

from oneshot import DRAW_THREE_FRAMES, check_no_crash, run_kiln, scratch
from kiln_harness import check, run_test


def main():
    with scratch() as tmp:
        cwd = Path(tmp) / "cwd"
        cwd.mkdir()
        env = {name: None for name in ("HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME",
                                       "XDG_DATA_HOME")}
        # With no cache folder kiln leaves Mesa's shader cache where Mesa puts it, the passwd entry's home: here it
        # goes to the test's folder instead.
        env["MESA_SHADER_CACHE_DIR"] = str(Path(tmp) / "mesa")
        result = run_kiln(tmp, ["-s", DRAW_THREE_FRAMES, "--exit-with-startup"], env=env, cwd=cwd)
        check_no_crash(result, "HOME unset")
        check(result.returncode == 0, f"kiln starts and a client draws three frames (exit {result.returncode})")
        left = sorted(str(p.relative_to(cwd)) for p in cwd.rglob("*"))
        check(not left, f"nothing is written in the folder kiln started in ({left[:5]})")


run_test(main)
