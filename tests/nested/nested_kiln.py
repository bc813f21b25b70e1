#!/usr/bin/env python3
"""kiln inside kiln: an inner kiln on the Wayland backend shows its client in the outer kiln's screenshot."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, client_binary, kiln_binary, rgb, run_test  # noqa: E402


def main():
    colour = rgb("33aa99")
    with Kiln(size="1024x768") as outer:
        inner = outer.spawn([kiln_binary(), "--backend", "wayland", "--socket", "wayland-inner",
                             "-s", f"{client_binary('kiln-demo-shm')} --size 240x180 --color 33aa99"])
        outer.wait_for(lambda: outer.screenshot().count(colour, step=2) > 2000,
                       "the inner kiln's client in the outer kiln", timeout=20)
        shot = outer.screenshot()
        box = shot.bounding_box(colour, tolerance=4)
        check(box is not None and box[2] - box[0] >= 200, f"the client's window shows through both kilns at {box}")
        check(inner.poll() is None, "the inner kiln is running")
        inner.terminate()
        check(inner.wait(15) == 0, "the inner kiln exits 0 on SIGTERM")
        check(outer.alive(), "the outer kiln is still running")
        status, _ = outer.stop()
        check(status == 0, f"the outer kiln exits 0 (got {status})")


run_test(main)
