#!/usr/bin/env python3
"""Headless frames are paced by a display clock of kiln's own: presentation feedback carries times on an exact grid
of refresh periods with the matching sequence numbers, whatever each frame costs (wlroots 0.15's headless timer
restarts after every frame, so its period grew by the frame's cost: 55 Hz under 16 windows), and the vsync flag."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from kiln_harness import Kiln, build_dir, check, client_binary, run_test  # noqa: E402

FRAMES = 120
VSYNC = 0x1


def probe_binary():
    # Built with the benchmarks (bench/meson.build), which a plain build includes.
    return str(build_dir() / "bench" / "kiln-bench-latency-probe")


def main():
    # Work in every frame: animated windows, and every frame a full redraw.
    with Kiln("--debug-full-redraw", size="1280x720") as kiln:
        for i in range(4):
            kiln.spawn([client_binary("kiln-demo-shm"), "--size", "400x300", "--color", f"{0x30 + 0x30 * i:02x}6699",
                        "--frames", "100000"])
        # Wider than the animated windows: one that maps after the probe (they start together) lands over it, and a
        # window wholly under an opaque one is suspended (xdg-shell v6: its frame callbacks wait), so a 64x64 probe
        # could wait for good behind a 400x300 window.
        result = kiln.run([probe_binary(), "--size", "480x64", "--frames", str(FRAMES)], timeout=60)
        kiln.stop()
    lines = [line.split() for line in result.stdout.splitlines()]
    presented = [(int(f[1]), int(f[3]), int(f[4])) for f in lines if f and f[0] == "P"]
    flags = [int(f[5]) for f in lines if f and f[0] == "P"]
    check(len(presented) >= FRAMES // 2, f"the probe's frames are presented ({len(presented)} of {FRAMES})")
    first_us, first_msc, refresh_ns = presented[0]
    check(abs(refresh_ns - 1e9 / 60) < 1, f"feedback reports the output's 60 Hz period ({refresh_ns} ns)")
    # Times are whole microseconds on the client's side: allow for rounding only.
    off_grid = [(t, msc) for t, msc, _ in presented
                if abs((t - first_us) * 1000 - (msc - first_msc) * refresh_ns) > 2000]
    check(not off_grid, f"every presentation time lies on the refresh grid its sequence number names "
          f"({len(off_grid)} of {len(presented)} do not, e.g. {off_grid[:3]})")
    mscs = [msc for _, msc, _ in presented]
    check(all(b > a for a, b in zip(mscs, mscs[1:])), "sequence numbers only go up")
    steps = [b - a for a, b in zip(mscs, mscs[1:])]
    print(f"periods between the probe's presentations: {sum(s == 1 for s in steps)} of {len(steps)} one period, "
          f"longest {max(steps)}")
    check(all(f & VSYNC for f in flags), f"every presentation is flagged vsync (flags seen: {sorted(set(flags))})")


run_test(main)
