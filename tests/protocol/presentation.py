#!/usr/bin/env python3
"""weston-presentation-shm gets wp_presentation feedback: frames are reported presented, none discarded."""
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402


def main():
    need("weston-presentation-shm")
    with Kiln() as kiln:
        client = kiln.spawn(["stdbuf", "-oL", "weston-presentation-shm", "-f"])
        time.sleep(2.0)
        client.send_signal(signal.SIGINT)
        try:
            out, _ = client.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            client.kill()
            out, _ = client.communicate()
        text = out.decode(errors="replace")
        presented = re.findall(r"^\s*\d+: f2c .* c2p\s+(\d+) ms", text, re.M)
        discarded = text.count("discarded")
        check(len(presented) >= 20, f"at least 20 frames reported presented (got {len(presented)})")
        check(discarded == 0, f"no frame reported discarded (got {discarded})")
        check(all(int(c) < 1000 for c in presented), "commit-to-presentation stays under a second")


run_test(main)
