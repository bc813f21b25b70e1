#!/usr/bin/env python3
"""No Xwayland program (the path wlroots runs holds none: an empty file bind-mounted over it in kiln's own mount
namespace; root only, others skip): kiln says once that there are no X11 clients, offers no DISPLAY (its startup
commands see none), an X client fails at once instead of hanging, kiln stays up and Wayland clients draw as ever."""
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from oneshot import DRAW_THREE_FRAMES
from kiln_harness import Kiln, check, client_binary, run_test, skip

X11_CLIENT = os.environ.get("KILN_X11_CLIENT", client_binary("kiln-x11-client"))


def xwayland_path():
    """Where wlroots runs Xwayland from: xwayland.pc's path, as wlroots was built with it."""
    if shutil.which("pkg-config"):
        found = subprocess.run(["pkg-config", "--variable=xwayland", "xwayland"], capture_output=True, text=True)
        if found.stdout.strip():
            return found.stdout.strip()
    return shutil.which("Xwayland")


def main():
    xwayland = xwayland_path()
    if not xwayland or not os.path.exists(xwayland):
        skip("Xwayland is not installed: every kiln here runs without it")
    if os.geteuid() != 0 or not shutil.which("unshare"):
        skip("hiding Xwayland from kiln alone needs root and unshare (a private mount namespace)")
    probe = subprocess.run(["unshare", "--mount", "--", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        skip(f"no private mount namespace here: {probe.stderr.strip()}")
    with tempfile.TemporaryDirectory(prefix="kiln-env-xwayland-") as tmp:
        empty = Path(tmp) / "no-xwayland"
        empty.write_text("")
        empty.chmod(0o644)
        kiln = Kiln("-s", "echo \"startup sees DISPLAY=${DISPLAY-unset}\"")
        # unshare execs sh, which mounts in the new namespace and execs kiln: one process, kiln's pid.
        kiln.argv = ["unshare", "--mount", "--", "/bin/sh", "-c", 'mount --bind "$1" "$2" && shift 2 && exec "$@"',
                     "sh", str(empty), xwayland] + kiln.argv
        with kiln:
            kiln.wait_for(lambda: "startup sees DISPLAY=" in kiln.logs(), "the startup command to run")
            log = kiln.logs()
            check(log.count("kiln: no X11 clients") == 1, "kiln says once that there are no X11 clients")
            check("X11 clients connect with DISPLAY" not in log, "and announces no X display")
            check("startup sees DISPLAY=unset" in log, "its startup commands get no DISPLAY")
            start = time.monotonic()
            x11 = kiln.run([X11_CLIENT, "window", "ff0000", "0", "0", "64", "64"], timeout=30)
            check(x11.returncode != 0, f"an X client started from kiln's session fails (exit {x11.returncode}, "
                  f"{x11.stdout.strip()[-200:]!r}) in {time.monotonic() - start:.1f} s")
            check(kiln.alive(), "kiln is still up")
            drew = kiln.run(DRAW_THREE_FRAMES.split(), timeout=60)
            check(drew.returncode == 0, f"a Wayland client draws three frames (exit {drew.returncode})")


run_test(main)
