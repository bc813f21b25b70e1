#!/usr/bin/env python3
"""vkcube (vulkan-tools' vkcube-wayland) on lavapipe (mesa-vulkan-drivers) in FIFO present mode on headless kiln:
Mesa's Vulkan WSI binds wp_fifo_manager_v1 and wp_commit_timing_manager_v1 and, seen in its own WAYLAND_DEBUG log,
sets a fifo barrier and a target time on the commit of nearly every frame, and the frames kiln reports presented
(wp_presentation) are at the output's 60 Hz refresh. (How many are presented rather than discarded, and on which
refresh, is printed, not checked: see the report of issue 21.)"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test, skip  # noqa: E402

FRAMES = 60
LAVAPIPE = sorted(Path("/usr/share/vulkan/icd.d").glob("lvp_icd*.json"))


def main():
    need("vkcube-wayland")
    if not LAVAPIPE:
        skip("lavapipe is not installed (mesa-vulkan-drivers)")
    with Kiln(size="640x480") as kiln:
        result = kiln.run(["vkcube-wayland", "--c", str(FRAMES), "--present_mode", "2"], timeout=180,
                          env={"WAYLAND_DEBUG": "1", "VK_DRIVER_FILES": str(LAVAPIPE[0]),
                               "VK_ICD_FILENAMES": str(LAVAPIPE[0])})
        log = result.stdout
        check(result.returncode == 0, f"vkcube ran {FRAMES} frames in FIFO mode and exited 0 ({result.returncode})")
        bound = sorted(set(re.findall(r'wl_registry#\d+\.bind\(\d+, "(\w+)"', log)))
        print(f"Mesa's WSI and vkcube bind: {' '.join(bound)}")
        for interface in ("wp_fifo_manager_v1", "wp_commit_timing_manager_v1"):
            check(interface in bound, f"Mesa's Vulkan WSI binds {interface}")

        # Each present: attach, set_timestamp, set_barrier, commit (then a wait_barrier commit of its own).
        attaches = len(re.findall(r"-> wl_surface#\d+\.attach\(wl_buffer#", log))
        barriers = len(re.findall(r"-> wp_fifo_v1#\d+\.set_barrier\(\)", log))
        timestamps = len(re.findall(r"-> wp_commit_timer_v1#\d+\.set_timestamp\(", log))
        check(attaches >= FRAMES and barriers >= 0.9 * attaches and timestamps >= 0.9 * attaches,
              f"its frames are fifo barriers with target times: {attaches} buffers, {barriers} set_barrier, "
              f"{timestamps} set_timestamp")

        presented = [(int(refresh), (int(hi) << 32) | int(lo)) for refresh, hi, lo in
                     re.findall(r"wp_presentation_feedback#\d+\.presented\(\d+, \d+, \d+, (\d+), (\d+), (\d+), \d+\)",
                                log)]
        discarded = len(re.findall(r"wp_presentation_feedback#\d+\.discarded\(\)", log))
        print(f"presentation feedback: {len(presented)} presented, {discarded} discarded")
        check(len(presented) >= 2, f"kiln reports frames presented ({len(presented)})")
        check(all(refresh == 16666666 for refresh, _ in presented),
              f"at the output's refresh, 16.67 ms ({sorted({r for r, _ in presented})})")
        print(f"presented on refreshes {[seq for _, seq in presented]}")
        check(kiln.alive(), "kiln is alive")


run_test(main)
