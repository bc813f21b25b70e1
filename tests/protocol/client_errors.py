#!/usr/bin/env python3
"""A client that breaks the protocol gets a protocol error and is cut off; kiln and other clients carry on."""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, client_binary, rgb, run_test  # noqa: E402

BAD_CLIENT = os.environ.get("KILN_PROTOCOL_ERROR_CLIENT")


def main():
    with Kiln() as kiln:
        good = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "200x200", "--color", "22aa44"])
        kiln.wait_for(lambda: kiln.screenshot().count(rgb("22aa44"), step=2) > 2000, "the well-behaved client")
        for mode, interface in (("unconfigured-buffer", "xdg_surface"), ("shm-bad-stride", "wl_shm_pool")):
            result = kiln.run([BAD_CLIENT, mode])
            lines = [l for l in result.stdout.splitlines() if l.startswith("protocol-error ")]
            check(result.returncode == 0 and lines, f"{mode}: the bad client got a protocol error ({lines})")
            check(lines[0].split()[1] == interface, f"{mode}: the error came from {interface}")
        check(kiln.alive(), "kiln survived both bad clients")
        check(good.poll() is None, "the well-behaved client is still connected")
        before = kiln.screenshot().count(rgb("22aa44"), step=2)
        check(before > 2000, "the well-behaved client is still on screen")
        status, _ = kiln.stop()
        check(status == 0, "kiln exits 0")


run_test(main)
