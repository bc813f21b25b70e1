#!/usr/bin/env python3
"""weston-presentation-shm gets wp_presentation feedback: frames are reported presented, none discarded."""
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test, time_scale  # noqa: E402


PRESENTED = re.compile(r"^\s*\d+: f2c .* c2p\s+(\d+) ms", re.M)


def main():
    need("weston-presentation-shm")
    with Kiln() as kiln:
        client = kiln.spawn(["stdbuf", "-oL", "weston-presentation-shm", "-f"])
        # Until it has reported 20 frames (a busy host may take far longer than the 0.4 s they take at 60 Hz): the
        # count is what is judged, not how fast the host ran.
        text = ""
        deadline = time.monotonic() + 30 * time_scale()
        while len(PRESENTED.findall(text)) < 20 and time.monotonic() < deadline and client.poll() is None:
            ready, _, _ = select.select([client.stdout], [], [], 0.5)
            if ready:
                text += os.read(client.stdout.fileno(), 65536).decode(errors="replace")
        client.send_signal(signal.SIGINT)
        try:
            out, _ = client.communicate(timeout=10 * time_scale())
        except subprocess.TimeoutExpired:
            client.kill()
            out, _ = client.communicate()
        text += out.decode(errors="replace")
        presented = PRESENTED.findall(text)
        discarded = text.count("discarded")
        check(len(presented) >= 20, f"at least 20 frames reported presented (got {len(presented)})")
        check(discarded == 0, f"no frame reported discarded (got {discarded})")
        check(all(int(c) < 1000 for c in presented), "commit-to-presentation stays under a second")


run_test(main)
