#!/usr/bin/env python3
"""The title text of kiln's server-side decoration at the scale of the output it is on: kiln lays the text out at
that scale (a font that much larger, into a buffer of the title's pixels) instead of drawing it at 1x and scaling it,
so its glyphs land 1:1 on the screen's pixels. Two headless outputs (grim -o each): on HEADLESS-1 at scale 1, then
dragged onto HEADLESS-2 at scale 2, then with HEADLESS-2 changed to 1.5 at run time (wlr-randr), the title in the
screenshot is pixel for pixel the text kiln's own Pango path draws at that scale (kiln-test-title-text); and,
measured on the screenshot alone, the glyphs at 1.5 have as many solid text pixels per blended edge pixel as text
drawn at 1.5 does, where the 1x text scaled up has far fewer."""
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from decoration_pixels import ACTIVE, BORDER, TITLE  # noqa: E402
from kiln_harness import Kiln, Screenshot, check, need, rgb, run_test, skip  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402

WINDOW, WINDOW_RGB = 0xff22aa44, rgb("22aa44")
LOGICAL = (201, 101)
LAYOUT = (1440, 720)  # logical: HEADLESS-1 960x720 at scale 1, HEADLESS-2 (960x720 pixels at 2) right of it
SERVER_SIDE = 2
TEXT = "Kiln title: Wg 1.5x"
CLOSE_MARGIN, CLOSE_SIZE = 4, TITLE - BORDER - 2 * 4
TITLE_WIDTH = LOGICAL[0] - CLOSE_MARGIN - CLOSE_SIZE - 2 * CLOSE_MARGIN  # ServerDecoration's title_width
TITLE_HEIGHT = TITLE - BORDER


def pixels(length, scale):
    return int(length * scale + 0.5)


def reference(scale):
    result = subprocess.run([os.environ["KILN_TITLE_TEXT_REFERENCE"], TEXT, str(TITLE_WIDTH), str(TITLE_HEIGHT),
                             "285577", f"{scale:g}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=20)
    if result.returncode == 77:
        skip(result.stderr.decode(errors="replace").strip())
    if result.returncode != 0:
        raise AssertionError(f"kiln-test-title-text failed: {result.stderr.decode(errors='replace')}")
    return Screenshot.from_ppm(result.stdout)


def crop(shot, x0, y0, width, height):
    return [shot.at(x0 + x, y0 + y) for y in range(height) for x in range(width)]


def sharpness(region):
    """(solid text pixels, blended ones): within 16 of the text's light grey, or between it and the title bar."""
    solid = blended = 0
    for colour in region:
        distance = max(abs(a - b) for a, b in zip(colour, ACTIVE))
        if max(abs(c - 237) for c in colour) <= 16:
            solid += 1
        elif distance > 16:
            blended += 1
    return solid, blended


def shot(kiln, output):
    return kiln.screenshot(output)


def window_box(kiln, output, scale):
    """The decorated window's box on `output` (grim -o), found whole by its colour, or None."""
    size = (pixels(LOGICAL[0], scale), pixels(LOGICAL[1], scale))
    image = shot(kiln, output)
    box = image.bounding_box(WINDOW_RGB, tolerance=0)
    return (image, box) if box and (box[2] - box[0], box[3] - box[1]) == size else None


def title_at(kiln, output, scale):
    """The title's pixels on `output`."""
    found = window_box(kiln, output, scale)
    if not found:
        return None
    image, box = found
    return crop(image, box[0] + pixels(CLOSE_MARGIN, scale), box[1] - pixels(TITLE_HEIGHT, scale),
                pixels(TITLE_WIDTH, scale), pixels(TITLE_HEIGHT, scale))


def settled(kiln, output, scale, want):
    """The title on `output` once it is `want`, or as it is after 10 s (kiln drawing it again may take a frame)."""
    deadline = time.monotonic() + 10
    while True:
        got = title_at(kiln, output, scale)
        if got == want or time.monotonic() > deadline:
            return got
        if not kiln.alive():
            check(False, "kiln is alive")
        time.sleep(0.1)


def wrong_pixels(got, want):
    return sum(1 for a, b in zip(got, want) if a != b) if got else len(want)


def main():
    need("grim")
    need("wlr-randr")
    if os.environ.get("KILN_TITLE_TEXT", "1") != "1":
        skip("kiln was built without Pango: no title text")
    at_1, at_15 = reference(1), reference(1.5)
    if sharpness(crop(at_15, 0, 0, at_15.width, at_15.height))[0] == 0:
        skip("no font draws the title (no fonts installed): the title bar is plain")
    check((at_1.width, at_1.height, at_15.width, at_15.height) ==
          (TITLE_WIDTH, TITLE_HEIGHT, pixels(TITLE_WIDTH, 1.5), pixels(TITLE_HEIGHT, 1.5)),
          f"kiln draws the title into {at_1.width}x{at_1.height} pixels at 1, {at_15.width}x{at_15.height} at 1.5")
    at_2 = reference(2)
    with tempfile.TemporaryDirectory(prefix="kiln-title-text-scale-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text("[decorations]\nmode=server\n"
                          "[output HEADLESS-1]\nmode=960x720\nscale=1\nposition=0,0\n"
                          "[output HEADLESS-2]\nmode=960x720\nscale=2\nposition=960,0\n")
        with Kiln("--outputs", "2", "--config", str(config), size=None) as kiln, \
                Connection(kiln.client_env) as mouse_conn, Connection(kiln.client_env) as conn:
            mouse = VirtualPointer(mouse_conn, LAYOUT)
            mouse.move(100, 100)  # a new window opens on the output under the pointer: HEADLESS-1
            window = Toplevel(conn, TEXT)
            decoration = conn.create("zxdg_toplevel_decoration_v1", conn.bind("zxdg_decoration_manager_v1", 1), 1,
                                     ("o", window.toplevel))
            conn.send(decoration, 1, ("u", SERVER_SIDE))
            window.commit()
            window.map(*LOGICAL, color=WINDOW)
            want = crop(at_1, 0, 0, at_1.width, at_1.height)
            got = settled(kiln, "HEADLESS-1", 1, want)
            wrong = wrong_pixels(got, want)
            check(wrong == 0, f"on HEADLESS-1 at scale 1: the title is kiln's text at 1x pixel for pixel ({wrong} of "
                              f"{len(want)} differ)")

            # Dragged by its title bar onto HEADLESS-2 (scale 2): drawn again there at 2, as it moves.
            _, box = window_box(kiln, "HEADLESS-1", 1)
            grip = (box[0] + 60, box[1] - TITLE_HEIGHT // 2)
            mouse.move(*grip)
            mouse.button(True)
            target = (1000 + 60, 60)
            for step in range(1, 9):
                mouse.move(grip[0] + (target[0] - grip[0]) * step // 8, grip[1] + (target[1] - grip[1]) * step // 8)
            mouse.button(False)
            mouse.move(100, 700)  # the cursor off the title, on HEADLESS-1's corner
            kiln.wait_for(lambda: window_box(kiln, "HEADLESS-2", 2), "the window wholly on HEADLESS-2")
            want = crop(at_2, 0, 0, at_2.width, at_2.height)
            got = settled(kiln, "HEADLESS-2", 2, want)
            wrong = wrong_pixels(got, want)
            check(wrong == 0, f"moved onto HEADLESS-2 at scale 2: the title is kiln's text laid out at 2, pixel for "
                              f"pixel ({wrong} of {len(want)} differ)")

            # HEADLESS-2 changed to 1.5 at run time: drawn again at 1.5.
            result = kiln.run(["wlr-randr", "--output", "HEADLESS-2", "--scale", "1.5"])
            check(result.returncode == 0, f"wlr-randr --scale 1.5 succeeds ({result.stdout.strip()})")
            kiln.wait_for(lambda: window_box(kiln, "HEADLESS-2", 1.5), "the window at scale 1.5")
            want = crop(at_15, 0, 0, at_15.width, at_15.height)
            got = settled(kiln, "HEADLESS-2", 1.5, want)
            # Measured on the screenshot alone: solid text pixels per blended one, against the text drawn at 1.5.
            solid, blended = sharpness(got or [])
            ref_solid, ref_blended = sharpness(want)
            check(blended and solid / blended >= 0.8 * ref_solid / ref_blended,
                  f"scale 1.5: the glyphs are as crisp as text drawn at 1.5 ({solid} solid and {blended} blended "
                  f"pixels; drawn at 1.5: {ref_solid} and {ref_blended})")
            wrong = wrong_pixels(got, want)
            check(wrong == 0, f"scale 1.5 (changed at run time): the title is kiln's text laid out at 1.5, pixel for "
                              f"pixel ({wrong} of {len(want)} differ)")
            check(kiln.alive(), "kiln is alive")


run_test(main)
