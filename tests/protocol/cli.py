#!/usr/bin/env python3
"""The command line: usage on bad flags (exit 2), --help, --version, --exit-with-startup, clean SIGTERM."""
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, kiln_binary, private_env, run_test  # noqa: E402


def run(args, env=None, timeout=30):
    with tempfile.TemporaryDirectory(prefix="kiln-cli-") as runtime:
        return subprocess.run([kiln_binary()] + args, env=private_env(runtime, **(env or {})), capture_output=True,
                              text=True, timeout=timeout)


def main():
    for bad in (["--no-such-flag"], ["--backend", "vulkan"], ["--headless-size", "10xabc"], ["--socket"],
                ["--precompile=sometimes"], ["--exit-with-startup"], ["--headless-size", "0x100"]):
        result = run(bad)
        check(result.returncode == 2, f"{' '.join(bad)!r} exits 2 (got {result.returncode})")
        check("Usage:" in result.stderr, f"{' '.join(bad)!r} prints usage")

    result = run(["--help"])
    check(result.returncode == 0 and "--backend" in result.stdout, "--help prints usage and exits 0")
    result = run(["--version"])
    check(result.returncode == 0 and result.stdout.startswith("kiln "), f"--version prints {result.stdout.strip()!r}")

    result = run(["--backend", "headless", "--socket", "kiln-cli", "-s", "true", "-s", "exit 3",
                  "--exit-with-startup"])
    check(result.returncode == 3, f"--exit-with-startup returns the failing command's status (got {result.returncode})")
    result = run(["--backend", "headless", "--socket", "kiln-cli", "-s", "test -n \"$WAYLAND_DISPLAY\"",
                  "--exit-with-startup"])
    check(result.returncode == 0, "startup commands see WAYLAND_DISPLAY and a clean run exits 0")

    with Kiln() as kiln:
        status, stats = kiln.stop()
        check(status == 0, "SIGTERM ends kiln with status 0")
        check(stats is not None and "startup" in stats, "--stats is written on SIGTERM")


run_test(main)
