"""Runs kiln to its end in an environment a test prepares, and the checks every environment test makes of that end:
no crash (no signal, no 128+signal status), no sanitizer report, and kiln's own lines on stderr."""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import SANITIZER_MARKERS, check, client_binary, kiln_binary, private_env, skip  # noqa: E402

# A startup command that is a real client: kiln exits with its status, 0 once it drew three frames on kiln.
DRAW_THREE_FRAMES = f"{client_binary('kiln-demo-shm')} --size 160x120 --frames 3"


def run_kiln(tmp, args, env=None, socket="kiln-env-test", timeout=90, cwd=None):
    """kiln --backend headless on `socket` with ARGS, its runtime files in `tmp`, to its end. `env` overrides the
    private environment; a value of None unsets that variable. Returns the CompletedProcess (text)."""
    full = private_env(tmp)
    for name, value in (env or {}).items():
        if value is None:
            full.pop(name, None)
        else:
            full[name] = value
    argv = [kiln_binary(), "--backend", "headless", "--socket", socket, "--headless-size", "320x240"] + list(args)
    result = subprocess.run(argv, env=full, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    print(f"$ {' '.join(argv)}\nexit {result.returncode}\n--- stderr ---\n{result.stderr[-4000:]}")
    return result


def check_no_crash(result, what):
    """kiln ended by itself: no signal (negative status, or 128+n from a shell), no sanitizer report."""
    check(result.returncode >= 0 and result.returncode < 128,
          f"{what}: kiln ends with a status, not a signal (exit {result.returncode})")
    report = [line for line in result.stderr.splitlines() if any(m in line for m in SANITIZER_MARKERS)]
    check(not report, f"{what}: no sanitizer report ({report[:1]})")


def kiln_lines(result, pattern):
    """kiln's own stderr lines ("kiln: ...") that match the regular expression `pattern`."""
    return [line for line in result.stderr.splitlines() if line.startswith("kiln:") and re.search(pattern, line)]


def scratch():
    """A temporary directory (0700, like a runtime dir) the test's runtime files, caches and configs go in."""
    directory = tempfile.TemporaryDirectory(prefix="kiln-env-")
    os.chmod(directory.name, 0o700)
    return directory


class Mount:
    """A mount (root only) undone when the test ends: `mount ARGS TARGET`, then `umount --lazy TARGET`. Skips the test
    (exit 77) when this process may not mount."""

    def __init__(self, args, target):
        self.args, self.target = list(args), str(target)

    def __enter__(self):
        if os.geteuid() != 0:
            skip("mounting a file system needs root")
        result = subprocess.run(["mount"] + self.args + [self.target], capture_output=True, text=True)
        if result.returncode != 0:
            skip(f"cannot mount here: {result.stderr.strip()}")
        return self

    def __exit__(self, *exc):
        subprocess.run(["umount", "--lazy", self.target], check=False)
        return False


def stats_of(path):
    """kiln's --stats file as a dict."""
    return json.loads(Path(path).read_text())
