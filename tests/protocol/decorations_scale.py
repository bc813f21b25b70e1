#!/usr/bin/env python3
"""kiln's server-side decoration at output scales 1.25, 1.5 and 1.75: its borders, title bar and close box are solid
rectangles drawn at the output's pixels, so every pixel across each edge is exactly the background, the decoration's
colour or the window's, none blended; the borders are round(4 x scale) pixels and meet the window with no seam
(each rectangle is placed by its offset from the window, rounded once); the close box is a solid square of
round(12 x scale) pixels; dragged by its title bar through odd logical steps it leaves nothing behind (the damage
wlroots computes from absolute edges covers where kiln drew). (The title text, laid out at the output's scale, is
checked in title_text_scale.py.)"""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from decoration_pixels import ACTIVE, BACKGROUND, BORDER, CLOSE, TITLE  # noqa: E402
from kiln_harness import Kiln, check, need, rgb, run_test  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402

WINDOW, WINDOW_RGB = 0xff22aa44, rgb("22aa44")
LOGICAL = (201, 101)
SERVER_SIDE = 2


def rounded(length, scale):
    return int(length * scale + 0.5)


def run(shot, points):
    """The colours along `points`, as runs: [(colour, length), ...]."""
    runs = []
    for x, y in points:
        colour = shot.at(x, y)
        if runs and runs[-1][0] == colour:
            runs[-1] = (colour, runs[-1][1] + 1)
        else:
            runs.append((colour, 1))
    return runs


def at_scale(scale):
    with tempfile.TemporaryDirectory(prefix="kiln-decorations-scale-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text(f"[decorations]\nmode=server\n[output HEADLESS-1]\nscale={scale}\n")
        with Kiln("--config", str(config), size="960x720") as kiln, Connection(kiln.client_env) as conn:
            window = Toplevel(conn, "decorated")
            decoration = conn.create("zxdg_toplevel_decoration_v1", conn.bind("zxdg_decoration_manager_v1", 1), 1,
                                     ("o", window.toplevel))
            conn.send(decoration, 1, ("u", SERVER_SIDE))
            window.commit()
            window.map(*LOGICAL, color=WINDOW)
            size = (rounded(LOGICAL[0], scale), rounded(LOGICAL[1], scale))
            box = kiln.wait_for(lambda: (b := kiln.screenshot().bounding_box(WINDOW_RGB, tolerance=0)) and
                                (b[2] - b[0], b[3] - b[1]) == size and b, f"the {size} window")
            border, title, close = rounded(BORDER, scale), rounded(TITLE, scale), rounded(12, scale)
            shot = kiln.screenshot()
            x0, y0, x1, y1 = box
            mx, my = (x0 + x1) // 2, (y0 + y1) // 2
            edges = {
                "left": (run(shot, [(x, my) for x in range(x0 - border - 3, x0 + 3)]),
                         [(BACKGROUND, 3), (ACTIVE, border), (WINDOW_RGB, 3)]),
                "right": (run(shot, [(x, my) for x in range(x1 - 3, x1 + border + 3)]),
                          [(WINDOW_RGB, 3), (ACTIVE, border), (BACKGROUND, 3)]),
                "bottom": (run(shot, [(mx, y) for y in range(y1 - 3, y1 + border + 3)]),
                           [(WINDOW_RGB, 3), (ACTIVE, border), (BACKGROUND, 3)]),
                "title bar beside the text": (run(shot, [(x0 - 2, y) for y in range(y0 - title - 3, y1 + border + 3)]),
                                              [(BACKGROUND, 3), (ACTIVE, title + size[1] + border),
                                               (BACKGROUND, 3)]),
            }
            for name, (got, want) in edges.items():
                check(got == want, f"scale {scale}: across the {name} edge, background, decoration and window "
                                   f"pixels only, the border {border} px, no seam and no blend ({got})")
            square = shot.bounding_box(CLOSE, tolerance=0)
            count = shot.count(CLOSE, tolerance=0) if square else 0
            check(square is not None and (square[2] - square[0], square[3] - square[1]) == (close, close) and
                  count == close * close,
                  f"scale {scale}: the close box is a solid {close}x{close} square ({square}, {count} pixels)")

            # Dragged by the title bar, 37 and 23 logical pixels in odd steps: what is left outside the decorated
            # window is background only.
            logical = (int(960 / scale), int(720 / scale))
            with Connection(kiln.client_env) as mouse_conn:
                mouse = VirtualPointer(mouse_conn, logical)
                grip = (round((x0 + x1) / 2 / scale) - 20, round((y0 - title / 2) / scale))
                mouse.move(*grip)
                mouse.button(True)
                for step in range(1, 6):
                    mouse.move(grip[0] + 37 * step // 5, grip[1] + 23 * step // 5)
                mouse.button(False)
                moved = kiln.wait_for(lambda: (b := kiln.screenshot().bounding_box(WINDOW_RGB, tolerance=0)) and
                                      b != box and b, "the window dragged")
                outer = (moved[0] - border, moved[1] - title, moved[2] + border, moved[3] + border)

                def stale():
                    shot = kiln.screenshot()
                    return [(x, y) for y in range(shot.height) for x in range(shot.width)
                            if not (outer[0] <= x < outer[2] and outer[1] <= y < outer[3]) and
                            shot.at(x, y) != BACKGROUND]

                left = stale()
                check(left == [], f"scale {scale}: moved to {moved[:2]}, nothing is left outside its decoration "
                                  f"{outer} ({len(left)} stale pixels, e.g. {left[:4]})")
            check(kiln.alive(), "kiln is alive")


def main():
    need("grim")
    for scale in (1.25, 1.5, 1.75):
        at_scale(scale)


run_test(main)
