#!/usr/bin/env python3
"""Real clients from weston 14 render through kiln: their pixels are on screen (grim via screencopy), and
weston-simple-damage, which keeps exactly two shm buffers and aborts ("Both buffers busy at redraw(). Server bug?")
when a frame callback comes before the release of the buffer its frame replaced, keeps drawing under CPU and GL
composition."""
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402

BLACK = (0, 0, 0)


def main():
    need("weston-simple-shm")
    need("weston-simple-egl")
    need("weston-simple-damage")
    with Kiln(size="800x600") as kiln:
        # weston-simple-shm: 250x250 of shifting colour rings; the background stays black.
        kiln.spawn(["weston-simple-shm"])
        shot = kiln.wait_for(lambda: (s := kiln.screenshot()) and len(s.distinct_colors()) > 20 and s,
                             "weston-simple-shm's pattern on screen")
        lit = shot.width * shot.height // 16 - shot.count(BLACK, tolerance=0, step=4)
        check(lit > 2000, f"weston-simple-shm covers the screen area it should ({lit} sampled pixels lit)")
        first = shot.pixels
        # Its colours are (radius or coordinate + frame time in ms / 16..64) x 0x080401 in 24 bits: a picture that
        # repeats only after 2^24 steps, so two screenshots with any new frame between them differ (no aliasing).
        time.sleep(0.3)
        check(kiln.screenshot().pixels != first, "weston-simple-shm animates (consecutive screenshots differ)")

    with Kiln(size="800x600") as kiln:
        # weston-simple-egl -o: an opaque window with a red/green/blue triangle.
        kiln.spawn(["weston-simple-egl", "-o"])
        def triangle():
            s = kiln.screenshot()
            reds = s.count((255, 0, 0), tolerance=60, step=2)
            greens = s.count((0, 255, 0), tolerance=60, step=2)
            blues = s.count((0, 0, 255), tolerance=60, step=2)
            return (reds > 5 and greens > 5 and blues > 5) and (reds, greens, blues)
        counts = kiln.wait_for(triangle, "weston-simple-egl's triangle")
        check(True, f"weston-simple-egl's triangle is drawn (red/green/blue samples {counts})")
        check(kiln.alive(), "kiln is still running")


def simple_damage(composition):
    """weston-simple-damage for a few seconds under `composition` (the default, or --composition gl): still running,
    its ball moving, and no complaint about busy buffers."""
    args = ["--composition", composition] if composition != "default" else []
    with Kiln(*args, size="640x480") as kiln:
        client = kiln.spawn(["weston-simple-damage", "--width=300", "--height=200"])
        kiln.wait_for(lambda: (s := kiln.screenshot()) and len(s.distinct_colors()) > 2 and s,
                      f"weston-simple-damage's window on screen ({composition})")
        # It redraws on every frame callback; 3 s is some 180 of them, each one needing the buffer released before.
        time.sleep(3)
        running = client.poll() is None
        if running:
            client.send_signal(signal.SIGINT)
        try:
            output = client.communicate(timeout=10)[0].decode(errors="replace")
        except Exception:  # noqa: BLE001 - a client that ignores SIGINT is killed at the test's end
            output = ""
        check(running, f"weston-simple-damage keeps drawing under {composition} composition (exit "
                       f"{client.returncode}: {output.strip()[-200:]!r})")
        check("busy" not in output, f"weston-simple-damage never finds both buffers busy ({composition})")
        check(kiln.alive(), "kiln is still running")


def damage_main():
    for composition in ("default", "gl"):
        simple_damage(composition)


def all_clients():
    main()
    damage_main()


run_test(all_clients)
