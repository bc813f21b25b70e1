#!/usr/bin/env python3
"""An idle headless kiln wakes once per tick of its own display clock (VirtualVblank, 60 Hz), not also for wlroots
0.15's free 16 ms headless frame timer, which kiln ignores (compositor/output/headless_frame_timer.hpp): counted by
the kernel, the voluntary context switches of kiln's main thread (each a sleep in epoll_wait and a wakeup after it).
With both timers it woke about 120 times a second; load only merges wakeups, never adds any."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402

REFRESH_HZ = 60
SECONDS = 3.0


def wakeups(pid):
    for line in open(f"/proc/{pid}/task/{pid}/status"):
        if line.startswith("voluntary_ctxt_switches:"):
            return int(line.split()[1])
    raise AssertionError("no voluntary_ctxt_switches in /proc")


def main():
    with Kiln(size="1280x720") as kiln:
        pid = kiln.proc.pid
        kiln.wait_for(lambda: wakeups(pid) > 30, "kiln's clock ticking (its main thread waking)", timeout=30)
        w0, t0 = wakeups(pid), time.monotonic()
        time.sleep(SECONDS)  # a window to count in; the evidence is the kernel's count, not the time
        w1, t1 = wakeups(pid), time.monotonic()
        check(kiln.alive(), "kiln is still running")
        kiln.stop()
    per_tick = (w1 - w0) / ((t1 - t0) * REFRESH_HZ)
    print(f"idle kiln: {w1 - w0} wakeups in {t1 - t0:.2f} s, {per_tick:.2f} per tick of a {REFRESH_HZ} Hz clock")
    check(per_tick <= 1.4, f"an idle kiln wakes about once per tick of its clock, not twice ({per_tick:.2f} per tick)")


run_test(main)
