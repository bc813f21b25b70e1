#!/usr/bin/env python3
"""An X11 window at output scale 1.5: kiln does what sway does, Xwayland draws at 1x and kiln scales its windows by
the output's scale, so a 200x100 X window covers 300x150 output pixels (soft, not crisp: X11 has no fractional
scale), one colour throughout."""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, rgb, run_test, skip  # noqa: E402
from x11_window import X11_CLIENT, XWindow, x_display  # noqa: E402

COLOUR = "c04080"


def main():
    need("Xwayland")
    need("grim")
    if not Path(X11_CLIENT).exists():
        skip(f"{X11_CLIENT} is not built")
    with tempfile.TemporaryDirectory(prefix="kiln-xwayland-scale-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text("[output HEADLESS-1]\nscale=1.5\n")
        with Kiln("--config", str(config), size="960x720") as kiln:
            XWindow(kiln, x_display(kiln), COLOUR, 40, 40, 200, 100)
            box = kiln.wait_for(lambda: (b := kiln.screenshot().bounding_box(rgb(COLOUR), tolerance=2)) and
                                (b[2] - b[0]) * (b[3] - b[1]) >= 200 * 100 and b, "the X window")
            shot = kiln.screenshot()
            check((box[2] - box[0], box[3] - box[1]) == (300, 150),
                  f"the 200x100 X window covers 300x150 output pixels at scale 1.5 ({box})")
            inside = shot.count(rgb(COLOUR), tolerance=2)
            check(inside >= 298 * 148, f"one colour throughout ({inside} of {300 * 150} pixels)")
            check(kiln.alive(), "kiln is alive")


run_test(main)
