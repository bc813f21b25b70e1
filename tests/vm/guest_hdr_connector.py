#!/usr/bin/env python3
"""Runs inside the VM: kiln on vkms with [output Virtual-1] color-profile=bt2020-pq. vkms's connector has neither
HDR_OUTPUT_METADATA nor Colorspace, so kiln says so once for the connector (and what became of its 10-bit scan-out
request), keeps drawing, and a window still shows."""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check, run_test  # noqa: E402
from vt_session import ENV, OUT, KilnOnVt, screenshot  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402

CONFIG = "[output Virtual-1]\ncolor-profile=bt2020-pq\n"
MISSING = "no HDR_OUTPUT_METADATA on connector Virtual-1"


def main():
    config = OUT / "kiln.ini"
    config.write_text(CONFIG)
    kiln = KilnOnVt(extra_env={"WLR_LIBINPUT_NO_DEVICES": "1"}, args=("--config", str(config)))
    try:
        kiln.wait_log(MISSING, timeout=120)
        conn = Connection(ENV, timeout=120)
        window = Toplevel(conn, "hdr connector")
        window.commit()
        window.map(200, 150, color=0xff000000)
        conn.roundtrip()
        deadline = time.monotonic() + 120
        while screenshot().count((0, 0, 0), tolerance=2, step=4) * 16 < 20000 and time.monotonic() < deadline:
            time.sleep(0.5)
        check(screenshot().count((0, 0, 0), tolerance=2, step=4) * 16 >= 20000, "a black window shows on Virtual-1")
        log = kiln.log()
        lines = [line for line in log.splitlines() if MISSING in line]
        check(len(lines) == 1, f"kiln says once that vkms's connector has no HDR_OUTPUT_METADATA: {lines}")
        depth = [line for line in log.splitlines() if "XRGB2101010" in line]
        check(len(depth) == 1, f"and what became of the 10-bit scan-out request: {depth}")
        check(kiln.running(), "kiln keeps running on the PQ output")
        conn.close()
        kiln.stop()
    finally:
        kiln.kill()


if __name__ == "__main__":
    run_test(main)
