#!/usr/bin/env python3
"""The clients suite's GL, video and image clients on headless kiln: glmark2 drawing and scoring one benchmark, mpv
playing a red video at its size, imv showing a green PNG (clients_harness.py runs them)."""
import re
import subprocess
from pathlib import Path

from clients_harness import GREEN, RED, check, drawn_window, main, need_client, size_of, start, wait_color, write_png


def glmark2(kiln, scratch):
    need_client("glmark2-es2-wayland", "glmark2-es2-wayland")
    run = start(kiln, ["glmark2-es2-wayland", "-s", "400x300", "-b", "build:duration=4"])
    drawn_window(kiln, "glmark2's window with the horse being drawn", min_size=(390, 290), min_colors=10)
    try:
        run.wait(timeout=120)
    except subprocess.TimeoutExpired:
        raise AssertionError("glmark2 did not finish its one benchmark in 120 s")
    text = run.log_path.read_text(errors="replace")
    score = re.search(r"glmark2 Score: (\d+)", text)
    check(run.returncode == 0 and score is not None and int(score.group(1)) > 0,
          f"glmark2 finishes and reports a score ({score.group(0) if score else text[-400:]})")


def mpv(kiln, scratch):
    need_client("mpv", "mpv")
    start(kiln, ["mpv", "--no-config", "--ao=null", "--osc=no", "--osd-level=0", "--title=kiln mpv",
                "av://lavfi:color=c=0xff0000:s=320x240:r=10"])
    box = wait_color(kiln, RED, "mpv playing a red lavfi video", (300, 220), tolerance=24)
    check(abs(size_of(box)[0] - 320) <= 4 and abs(size_of(box)[1] - 240) <= 4,
          f"mpv's window shows the 320x240 video ({size_of(box)})")


def imv(kiln, scratch):
    need_client("imv-wayland", "imv")
    image = Path(scratch) / "green.png"
    write_png(image, 160, 120, bytes(GREEN) * 160 * 120)
    start(kiln, ["imv-wayland", str(image)])
    box = wait_color(kiln, GREEN, "imv showing the green PNG", (150, 110), tolerance=4)
    check(True, f"the image is drawn in its colour, {size_of(box)[0]}x{size_of(box)[1]}")


CASES = {f.__name__: f for f in (glmark2, mpv, imv)}


if __name__ == "__main__":
    main(CASES)
