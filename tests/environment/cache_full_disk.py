#!/usr/bin/env python3
"""The cache folder is on a full file system (a 64 KiB tmpfs; mounting needs root, others skip): kiln starts,
compiles its programs, draws and says once that it cannot write the cache; a second start on the same full disk is
as fine, and every entry kiln left there is whole (kiln-cache verify), so no half-written one is ever loaded."""
import os
import subprocess
from pathlib import Path

from oneshot import DRAW_THREE_FRAMES, Mount, check_no_crash, kiln_lines, run_kiln, scratch, stats_of
from kiln_harness import check, run_test

CACHE_TOOL = os.environ.get("KILN_CACHE_TOOL", "")


def start(tmp, cache_home, what):
    stats = Path(tmp) / "stats.json"
    result = run_kiln(tmp, ["--precompile=fast", "--stats", str(stats), "-s", DRAW_THREE_FRAMES,
                            "--exit-with-startup"], env={"XDG_CACHE_HOME": str(cache_home)})
    check_no_crash(result, what)
    check(result.returncode == 0, f"{what}: kiln starts and a client draws three frames (exit {result.returncode})")
    warnings = kiln_lines(result, str(cache_home))
    check(len(warnings) == 1 and "No space left on device" in warnings[0],
          f"{what}: one warning says the cache cannot be written ({warnings})")
    return stats_of(stats)["programs"]


def verify(cache_home, what):
    result = subprocess.run([CACHE_TOOL, "--cache-dir", str(cache_home / "kiln"), "verify"], capture_output=True,
                            text=True, timeout=60)
    print(result.stdout + result.stderr)
    check(result.returncode == 0 and " 0 bad" in result.stdout,
          f"{what}: every entry in the cache verifies ({result.stdout.strip()!r}, exit {result.returncode})")
    leftovers = [p.name for p in cache_home.rglob("*") if p.name.startswith(".tmp")]
    check(not leftovers, f"{what}: no partly written temporary file is left ({leftovers[:3]})")


def main():
    check(os.access(CACHE_TOOL, os.X_OK), f"kiln-cache is built ({CACHE_TOOL})")
    with scratch() as tmp:
        full = Path(tmp) / "full"
        full.mkdir()
        with Mount(["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs"], full):
            programs = start(tmp, full, "the first start")
            check(programs["linked_from_source"] > 0,
                  f"kiln compiled its programs ({programs['linked_from_source']} linked from source)")
            free = os.statvfs(full)
            check(free.f_bavail * free.f_frsize < 8192, f"the disk is full ({free.f_bavail * free.f_frsize} B free)")
            verify(full, "after the first start")
            programs = start(tmp, full, "the second start")
            check(programs["disk_entries_discarded"] == 0 and programs["binary_rejected"] == 0,
                  f"no entry it read was defective ({programs['disk_entries_discarded']} discarded, "
                  f"{programs['binary_rejected']} rejected)")
            check(programs["loaded_from_disk"] + programs["linked_from_source"] > 0,
                  f"its programs came from the entries that fit ({programs['loaded_from_disk']}) or were compiled "
                  f"({programs['linked_from_source']})")
            verify(full, "after the second start")


run_test(main)
