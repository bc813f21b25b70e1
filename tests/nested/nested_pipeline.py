#!/usr/bin/env python3
"""kiln's frame pipeline where a host shows the pixels: an inner kiln on the Wayland backend draws each frame's damage
only, reads back only those rectangles into the shm buffer its host shows (after the frame's fence), and must show,
in the outer kiln, exactly what a full redraw shows; composed on the CPU (the default on llvmpipe), it writes the
host's buffer directly, reads nothing back, and shows the same pixels. (A host that holds buffers longer, KMS, makes the ring use more
slots: the VM test checks that.)"""
import json
import select
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, client_binary, kiln_binary, run_test  # noqa: E402

SCENE = [
    "--size 300x200 --color 3366cc --frames 40",
    "--size 300x200 --color 22aa44 --frames 55",
    "--size 260x180 --color cc2222 --alpha 128 --frames 30",
    "--size 200x120 --color eeee00 --frames 70",
]


def run_inner(extra):
    """The outer kiln's screenshot once the inner kiln's clients all hold still, and the inner kiln's stats."""
    with Kiln(size="1600x1000") as outer:
        stats_path = Path(outer.tmp) / "inner-stats.json"
        # One after another, so the stacking and placement are the same in both runs.
        script = "; ".join(f"{client_binary('kiln-demo-shm')} {args} --stay & sleep 1" for args in SCENE) + "; wait"
        inner = outer.spawn([kiln_binary(), "--backend", "wayland", "--socket", "wayland-inner",
                             "--stats", str(stats_path), *extra, "-s", script])
        drawn, deadline = 0, time.monotonic() + 40
        while drawn < len(SCENE) and time.monotonic() < deadline:
            ready, _, _ = select.select([inner.stdout], [], [], 0.5)
            if ready:
                line = inner.stdout.readline()
                if not line:
                    break
                drawn += b"drew" in line
        check(drawn == len(SCENE), f"the inner kiln's {len(SCENE)} clients drew their frames ({drawn})")
        time.sleep(0.5)  # idle frames: any slot left with stale content would show now
        shot = outer.screenshot()
        inner.terminate()
        check(inner.wait(15) == 0, "the inner kiln exits 0 on SIGTERM")
        stats = json.loads(stats_path.read_text())
        outer.stop()
    return shot, stats


def main():
    # GL composition first: what llvmpipe draws is read back, damaged rectangles only.
    shot, stats = run_inner(["--composition", "gl"])
    reference, _ = run_inner(["--debug-full-redraw", "--composition", "gl"])
    frames = stats["frames"]
    check(frames["ring_slots"] >= 1, f"the inner kiln's ring used {frames['ring_slots']} slots")
    differing = sum(1 for i in range(0, len(shot.pixels), 3) if shot.pixels[i:i + 3] != reference.pixels[i:i + 3])
    check(differing == 0, f"age-aware damage over {frames['rendered']} frames shows what a full redraw shows "
          f"({differing} pixels differ)")
    readback = stats["buffers"]["readback_bytes"]
    full = 1280 * 720 * 4
    check(0 < readback < full * frames["rendered"] // 4,
          f"only damaged rectangles were read back ({readback} bytes for {frames['rendered']} frames, "
          f"{readback / max(1, frames['rendered']) / full:.1%} of a full frame each)")
    check(frames["composed_on_cpu"] == 0, "--composition gl composes nothing on the CPU")

    # kiln's default on llvmpipe: unscaled shm windows composed on the CPU, straight into the host's shm buffer, so
    # nothing is read back, and the host shows the same pixels.
    cpu_shot, cpu_stats = run_inner([])
    cpu_frames = cpu_stats["frames"]
    check(cpu_frames["composed_on_cpu"] > 0 and cpu_stats["buffers"]["readback_bytes"] == 0,
          f"composed on the CPU: {cpu_frames['composed_on_cpu']} of {cpu_frames['rendered']} frames, "
          f"{cpu_stats['buffers']['readback_bytes']} bytes read back")
    differing = sum(1 for i in range(0, len(cpu_shot.pixels), 3)
                    if cpu_shot.pixels[i:i + 3] != reference.pixels[i:i + 3])
    check(differing == 0, f"CPU-composed frames with age-aware damage show what a full GL redraw shows "
          f"({differing} pixels differ)")


run_test(main)
