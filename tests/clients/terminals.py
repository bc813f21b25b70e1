#!/usr/bin/env python3
"""The clients suite's terminals on headless kiln: foot and weston-terminal drawn in their colours inside their
frames, xterm through Xwayland where its -geometry puts it, under kiln's title bar (clients_harness.py runs them)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from clients_harness import (BLUE, CYAN, check, color_box, colors_in, drawn_window, main, need_client, size_of, start,
                             wait_color, x_display)  # noqa: E402
from decoration_pixels import ACTIVE, TITLE  # noqa: E402


def foot(kiln, scratch):
    need_client("foot", "foot")
    config = Path(scratch) / "foot.ini"  # foot 1.13 ignores -o overrides when it has no configuration file
    config.write_text("[colors]\nbackground=00ffff\nforeground=0000ff\n")
    start(kiln, ["foot", "-c", str(config), "sh", "-c", "echo kiln clients; exec sleep 600"])
    shot, box, _ = drawn_window(kiln, "foot's window")
    cyan = color_box(shot, CYAN)
    check(cyan is not None and size_of(cyan)[0] > 200, f"foot's background is the cyan it was given ({cyan})")
    check(len([c for c in colors_in(shot, box, 1) if c[2] > 200 and c[0] < 60 and c[1] < 200]) > 0,
          "and its blue text is drawn")


def weston_terminal(kiln, scratch):
    need_client("weston-terminal", "weston")
    start(kiln, ["weston-terminal", "--shell=/bin/sh"])
    shot, box, _ = drawn_window(kiln, "weston-terminal's window, its frame and terminal", min_size=(200, 100),
                                min_colors=3)
    black = color_box(shot, (0, 0, 0), tolerance=0)
    check(black is not None and size_of(black)[0] > 300 and size_of(black)[1] > 150 and
          box[0] < black[0] and box[1] < black[1] and black[2] < box[2] and black[3] < box[3],
          f"its black terminal area sits inside its frame ({black} in {box})")


def xterm(kiln, scratch):
    need_client("xterm", "xterm")
    need_client("Xwayland", "xwayland")
    display = x_display(kiln)
    start(kiln, ["xterm", "-geometry", "40x8+100+100", "-bg", "#00ffff", "-fg", "#0000ff",
                "-e", "sh", "-c", "echo kiln clients; exec sleep 600"], env={"DISPLAY": display})
    box = wait_color(kiln, CYAN, "xterm's cyan window through Xwayland", (150, 60))
    check(box[:2] == (100, 100), f"where its -geometry put it ({box})")
    shot = kiln.screenshot()
    check(BLUE in colors_in(shot, box, 1), "with its blue text drawn")
    kiln.wait_for(lambda: kiln.screenshot().at(box[0] + 2, box[1] - TITLE + 1) == ACTIVE, "kiln's title bar on xterm")
    check(True, "with kiln's title bar above it, in the focused colour (xterm draws no frame of its own)")


CASES = {f.__name__: f for f in (foot, weston_terminal, xterm)}


if __name__ == "__main__":
    main(CASES)
