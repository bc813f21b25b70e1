#!/usr/bin/env python3
"""The cache folder is a plain file, or lies under one: kiln starts, compiles its programs and draws, and says once
that it runs without a program cache."""
from pathlib import Path

from oneshot import DRAW_THREE_FRAMES, check_no_crash, kiln_lines, run_kiln, scratch, stats_of
from kiln_harness import check, run_test


def starts_without_cache(tmp, cache_home, what):
    stats = Path(tmp) / "stats.json"
    result = run_kiln(tmp, ["--precompile=fast", "--stats", str(stats), "-s", DRAW_THREE_FRAMES,
                            "--exit-with-startup"], env={"XDG_CACHE_HOME": str(cache_home)})
    check_no_crash(result, what)
    check(result.returncode == 0, f"{what}: kiln starts and a client draws three frames (exit {result.returncode})")
    linked = stats_of(stats)["programs"]["linked_from_source"]
    check(linked > 0, f"{what}: kiln compiled its programs ({linked} linked from source)")
    warnings = kiln_lines(result, str(cache_home))
    check(len(warnings) == 1 and "Not a directory" in warnings[0],
          f"{what}: one warning names the cache folder and why ({warnings})")


def main():
    with scratch() as tmp:
        plain = Path(tmp) / "plain-file"
        plain.write_text("not a folder\n")
        starts_without_cache(tmp, plain, "XDG_CACHE_HOME a plain file")
        starts_without_cache(tmp, plain / "below", "XDG_CACHE_HOME under a plain file")
        check(plain.read_text() == "not a folder\n", "the file is left as it was")


run_test(main)
