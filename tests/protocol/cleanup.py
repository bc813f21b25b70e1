#!/usr/bin/env python3
"""Tests leave nothing behind: the Python tests that start kiln themselves, two that start it through the harness (one
with --test-input and clients of its own), kiln-cache's and the C++ cache suite, run with a scratch TMPDIR and HOME,
leave both empty, and the harness removes its directory (and kiln) when kiln fails to start."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import build_dir, check, run_test  # noqa: E402

TESTS = Path(__file__).resolve().parents[1]


def leftovers(directory):
    return sorted(str(p.relative_to(directory)) for p in Path(directory).rglob("*"))


def run_in_scratch(argv, extra_env=None):
    """Runs argv with TMPDIR and HOME in fresh directories; returns (result, what it left in each)."""
    with tempfile.TemporaryDirectory(prefix="kiln-cleanup-") as scratch:
        tmp, home = Path(scratch) / "tmp", Path(scratch) / "home"
        tmp.mkdir()
        home.mkdir()
        env = dict(os.environ, TMPDIR=str(tmp), HOME=str(home), KILN_BUILD_DIR=str(build_dir()), **(extra_env or {}))
        env.pop("XDG_CACHE_HOME", None)
        result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=200)
        return result, leftovers(tmp), leftovers(home)


def main():
    scripts = [(TESTS / "protocol" / "cli.py", {}),
               (TESTS / "protocol" / "config_cli.py", {}),
               (TESTS / "protocol" / "config_outputs.py", {}),
               (TESTS / "protocol" / "startup_failure.py", {}),
               (TESTS / "protocol" / "globals.py", {}),
               (TESTS / "protocol" / "pointer_constraints.py", {}),
               (TESTS / "cache" / "kiln_cache_tool.py", {"KILN_CACHE_TOOL": str(build_dir() / "tools" / "kiln-cache")})]
    for script, extra_env in scripts:
        result, tmp_left, home_left = run_in_scratch([sys.executable, str(script)], extra_env)
        name = script.relative_to(TESTS)
        check(result.returncode == 0, f"{name} passes ({result.stderr[-300:]})")
        check(tmp_left == [], f"{name} leaves nothing in TMPDIR ({len(tmp_left)}: {tmp_left[:4]})")
        check(home_left == [], f"{name} leaves nothing in HOME ({home_left[:4]})")

    # The C++ cache suite: its temporary directories and the driver's shader cache of its GL contexts.
    result, tmp_left, home_left = run_in_scratch([str(build_dir() / "tests" / "cache" / "cache-tests")])
    check(result.returncode in (0, 77), f"the cache suite runs ({result.stdout[-300:]})")
    check(tmp_left == [] and home_left == [], f"the cache suite leaves nothing behind ({tmp_left[:4]} {home_left[:4]})")

    # A kiln that cannot start fails the test inside `with Kiln(...)`; its directory and process still go.
    failing = ("import sys; sys.path.insert(0, sys.argv[1]); from kiln_harness import Kiln\n"
               "try:\n"
               "    with Kiln('--no-such-flag'):\n"
               "        pass\n"
               "except AssertionError:\n"
               "    sys.exit(0)\n"
               "sys.exit(1)\n")
    result, tmp_left, home_left = run_in_scratch([sys.executable, "-c", failing, str(TESTS / "lib")])
    check(result.returncode == 0, f"a kiln that exits before its socket fails the test ({result.stderr[-300:]})")
    check(tmp_left == [] and home_left == [], f"and leaves nothing behind ({tmp_left[:4]} {home_left[:4]})")


run_test(main)
