#!/usr/bin/env python3
"""The cache folder is on a read-only mount (root only: tests run as root; others skip): empty, kiln starts,
compiles its programs, draws and says once that it runs without a program cache; already filled, kiln loads its
programs from it and starts the same."""
from pathlib import Path

from oneshot import DRAW_THREE_FRAMES, Mount, check_no_crash, kiln_lines, run_kiln, scratch, stats_of
from kiln_harness import check, run_test


def start(tmp, cache_home, what):
    stats = Path(tmp) / "stats.json"
    result = run_kiln(tmp, ["--precompile=fast", "--stats", str(stats), "-s", DRAW_THREE_FRAMES,
                            "--exit-with-startup"], env={"XDG_CACHE_HOME": str(cache_home)})
    check_no_crash(result, what)
    check(result.returncode == 0, f"{what}: kiln starts and a client draws three frames (exit {result.returncode})")
    return result, stats_of(stats)["programs"]


def main():
    with scratch() as tmp:
        empty = Path(tmp) / "empty-cache"
        empty.mkdir()
        with Mount(["--bind", "-o", "ro", str(empty)], empty):
            result, programs = start(tmp, empty, "an empty read-only cache")
            check(programs["linked_from_source"] > 0,
                  f"kiln compiled its programs ({programs['linked_from_source']} linked from source)")
            warnings = kiln_lines(result, str(empty))
            check(len(warnings) == 1 and "Read-only file system" in warnings[0],
                  f"one warning names the cache folder and why ({warnings})")

        filled = Path(tmp) / "filled-cache"
        filled.mkdir()
        start(tmp, filled, "filling the cache")
        with Mount(["--bind", "-o", "ro", str(filled)], filled):
            result, programs = start(tmp, filled, "a filled read-only cache")
            check(programs["loaded_from_disk"] > 0,
                  f"kiln loads its programs from it ({programs['loaded_from_disk']} from disk)")
            warnings = kiln_lines(result, str(filled))
            check(len(warnings) == 1 and "Read-only file system" in warnings[0],
                  f"one line says it is read-only ({warnings})")


run_test(main)
