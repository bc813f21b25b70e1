#!/usr/bin/env python3
"""kiln inside weston 14 (Wayland backend): it opens its window there and serves its own clients."""
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check, client_binary, kiln_binary, need, private_env, run_test  # noqa: E402


def main():
    need("weston")
    with tempfile.TemporaryDirectory(prefix="kiln-in-weston-") as runtime:
        run_nested(runtime)


def run_nested(runtime):
    env = private_env(runtime)
    weston = subprocess.Popen(["weston", "--backend=headless", "--renderer=pixman", "--socket=weston-outer",
                               "--idle-time=0"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kiln = None
    try:
        for _ in range(200):
            if (Path(runtime) / "weston-outer").exists():
                break
            time.sleep(0.05)
        check((Path(runtime) / "weston-outer").exists(), "weston is up")
        kiln = subprocess.Popen([kiln_binary(), "--backend", "wayland", "--socket", "kiln-inner"],
                                env=dict(env, WAYLAND_DISPLAY="weston-outer"), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        for _ in range(200):
            if (Path(runtime) / "kiln-inner").exists() or kiln.poll() is not None:
                break
            time.sleep(0.05)
        check(kiln.poll() is None, "kiln runs nested in weston")
        inner_env = dict(env, WAYLAND_DISPLAY="kiln-inner")
        info = subprocess.run(["wayland-info"], env=inner_env, capture_output=True, text=True, timeout=30)
        check(info.returncode == 0 and "xdg_wm_base" in info.stdout, "clients reach kiln inside weston")
        demo = subprocess.run([client_binary("kiln-demo-shm"), "--frames", "30"], env=inner_env,
                              capture_output=True, text=True, timeout=60)
        check(demo.returncode == 0, "a client draws 30 frames in kiln inside weston (frame callbacks flow)")
        kiln.terminate()
        check(kiln.wait(15) == 0, "kiln exits 0 on SIGTERM")
    finally:
        if kiln and kiln.poll() is None:
            kiln.kill()
            kiln.wait()
        weston.terminate()
        try:
            weston.wait(15)
        except subprocess.TimeoutExpired:
            weston.kill()
            weston.wait()


run_test(main)
