#!/usr/bin/env python3
"""The clients suite's browsers against kiln's colour management: Chromium 156 and Firefox ESR 153 bind
wp_color_manager_v1 and read the output's description (WAYLAND_DEBUG), and a page with a block of
`color(display-p3 1 0 0)` beside one of plain sRGB red is on screen (grim) as the reference computed here says, on a
Display P3 output (kiln.ini `color-profile=p3`) and on an sRGB one.

The reference (plain Python from the published primaries, tests/protocol/color_management_pixels.py's helpers, both
whites D65 so relative colorimetric is a matrix and a per-channel clip):
- sRGB red on the sRGB output: (255, 0, 0); on the P3 output: sRGB red converted to Display P3 (234, 51, 35).
- Display P3 red on the P3 output: (255, 0, 0) where the browser describes its buffer with set_image_description;
  without a description the browser draws it clipped to sRGB red and kiln converts that like any sRGB pixel, so it
  must equal the sRGB block. On the sRGB output: clipped to (255, 0, 0) either way.
Which of the two the browser did is read from its WAYLAND_DEBUG log; doc/colour.md ("Browsers") says what each
browser does here and why (Chromium describes buffers only on its GPU compositing path, which needs a DRM render node).
Tolerance: 1 code value, kiln's GL conversion against the reference in doubles (as in tests/protocol/output_colour.py);
the browsers fill flat CSS colours exactly (no dithering: the blocks are checked to be uniform).
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from clients_harness import FIRST_FRAME_TIMEOUT, check, main, need_client, start  # noqa: E402
import color_management_pixels as cmp  # noqa: E402  (the primaries and the matrix helpers)

P_SRGB, P_DISPLAY_P3 = 1, 9  # wp_color_manager_v1.primaries
TOLERANCE = 1
BLOCK = 160  # CSS pixels; the output is at scale 1

# Two blocks on black: Display P3 red at the left, sRGB red at the right. The title says the page is drawn.
PAGE = """<!doctype html><html><head><style>html,body{margin:0;background:#000;overflow:hidden}
div{position:absolute;top:40px;width:BLOCKpx;height:BLOCKpx}</style></head><body>
<div style="left:40px;background:color(display-p3 1 0 0)"></div>
<div style="left:280px;background:rgb(255,0,0)"></div>
<script>document.title = "colour page drawn, p3 gamut " + matchMedia("(color-gamut: p3)").matches;</script>
</body></html>""".replace("BLOCK", str(BLOCK))


def on_output(rgb, output):
    """What linear-light `rgb` (in the given primaries' space, as a (primaries, values) pair) becomes as 8-bit values on
    an output of `output` primaries with the sRGB curve: matrix through XYZ, per-channel clip, encode."""
    primaries, values = rgb
    matrix = cmp.product(cmp.inverse(cmp.to_xyz(cmp.PRIMARIES[output])), cmp.to_xyz(cmp.PRIMARIES[primaries]))
    linear = [cmp.srgb_decode(v) for v in values]
    converted = [min(1.0, max(0.0, sum(matrix[r][k] * linear[k] for k in range(3)))) for r in range(3)]
    return tuple(round(cmp.srgb_encode(c) * 255) for c in converted)


def red_blocks(shot):
    """The two blocks of reddish pixels (r > 150, g and b < 110), left then right: each (box, set of colours), found
    on a 2-pixel grid and split at the widest gap in x."""
    points = [(x, y) for y in range(0, shot.height, 2) for x in range(0, shot.width, 2)
              if (p := shot.at(x, y))[0] > 150 and p[1] < 110 and p[2] < 110]
    xs = sorted({x for x, _ in points})
    if len(xs) < 2:
        return None
    gap, split = max((b - a, b) for a, b in zip(xs, xs[1:]))
    if gap <= 2:
        return None
    blocks = []
    for side in ([p for p in points if p[0] < split], [p for p in points if p[0] >= split]):
        box = (min(x for x, _ in side), min(y for _, y in side), max(x for x, _ in side) + 1,
               max(y for _, y in side) + 1)
        # The inside, 4 pixels in from the edges (an edge may be blended with the black around it).
        colours = {shot.at(x, y) for y in range(box[1] + 4, box[3] - 4, 3) for x in range(box[0] + 4, box[2] - 4, 3)}
        blocks.append((box, colours))
    return blocks


def blocks_on_screen(kiln, child, name):
    """Waits for the page (its title in the browser's WAYLAND_DEBUG log) and for both blocks on screen at their size;
    returns [(box, colours)] for the P3 block and the sRGB block."""
    kiln.wait_for(lambda: "colour page drawn" in child.log_path.read_text(errors="replace"), f"{name}'s page drawn",
                  timeout=FIRST_FRAME_TIMEOUT)

    def both():
        found = red_blocks(kiln.screenshot())
        return found if found and all(b[2] - b[0] >= BLOCK - 4 and b[3] - b[1] >= BLOCK - 4 for b, _ in found) \
            else None
    return kiln.wait_for(both, f"{name}'s two {BLOCK}x{BLOCK} blocks on screen", timeout=30, interval=0.5)


def check_binding(log, name, output):
    """The browser binds wp_color_manager_v1 and reads the output's description, whose information names `output`'s
    primaries (WAYLAND_DEBUG)."""
    check(re.search(r'bind\(\d+, "wp_color_manager_v1", \d+,', log),
          f"{name} binds wp_color_manager_v1 (WAYLAND_DEBUG)")
    check(re.search(r"wp_color_manager_v1#\d+\.get_output\(", log),
          f"{name} asks for the output's image description (get_output)")
    want = {"srgb": P_SRGB, "display-p3": P_DISPLAY_P3}[output]
    named = [int(n) for n in re.findall(r"wp_image_description_info_v1#\d+\.primaries_named\((\d+)\)", log)]
    check(want in named, f"the information {name} reads names the output's primaries {output} ({want}): {named}")


def check_pixels(blocks, log, name, output):
    """The blocks' colours against the reference, for a browser that did or did not describe its buffer."""
    described = "set_image_description(" in log
    srgb_red = on_output(("srgb", (1.0, 0.0, 0.0)), output)
    if described or output == "srgb":
        p3_red = on_output(("display-p3", (1.0, 0.0, 0.0)), output)
    else:
        p3_red = srgb_red  # undescribed: the browser clipped it to sRGB red, kiln converted that
    print(f"{name}: set_image_description {'seen' if described else 'not seen'} in its log; reference on the "
          f"{output} output: P3 red {p3_red}, sRGB red {srgb_red}")
    for (box, colours), want, what in ((blocks[0], p3_red, "color(display-p3 1 0 0)"), (blocks[1], srgb_red, "sRGB red")):
        worst = max(max(abs(a - b) for a, b in zip(c, want)) for c in colours)
        check(worst <= TOLERANCE, f"the {what} block at {box} is {sorted(colours)} on the {output} output: the "
              f"reference {want} within {TOLERANCE} (worst {worst})")


def start_chromium(kiln, scratch):
    need_client("chromium", "chromium")
    page = Path(scratch) / "colour.html"
    page.write_text(PAGE)
    return start(kiln, ["chromium", "--ozone-platform=wayland", "--no-sandbox", "--disable-gpu",
                        f"--user-data-dir={scratch}/chromium", "--no-first-run", "--no-default-browser-check",
                        "--disable-extensions", "--window-size=600,400", f"--app=file://{page}"],
                 env={"WAYLAND_DEBUG": "1"})


def start_firefox(kiln, scratch):
    need_client("firefox-esr", "firefox-esr")
    page = Path(scratch) / "colour.html"
    page.write_text(PAGE)
    profile = Path(scratch) / "firefox"
    profile.mkdir()
    # No user.js: Firefox binds wp_color_manager_v1 with its defaults (doc/colour.md, "Browsers", for the prefs tried).
    return start(kiln, ["firefox-esr", "--no-remote", "--profile", str(profile), "--kiosk", f"file://{page}"],
                 env={"WAYLAND_DEBUG": "1", "MOZ_ENABLE_WAYLAND": "1"})


def colour_case(launch, name, output):
    def case(kiln, scratch):
        child = launch(kiln, scratch)
        blocks = blocks_on_screen(kiln, child, name)
        log = child.log_path.read_text(errors="replace")
        check_binding(log, name, output)
        if name == "Chromium":
            # Chromium gives each of its surfaces a color-management surface and its feedback.
            check(re.search(r"wp_color_manager_v1#\d+\.get_surface\(", log) and
                  re.search(r"wp_color_manager_v1#\d+\.get_surface_feedback\(", log),
                  "Chromium asks for a wp_color_management_surface_v1 and its feedback for its surface")
        check_pixels(blocks, log, name, output)
    case.__name__ = f"{name.lower()}_{output.replace('-', '')}"
    return case


CASES = {c.__name__: c for c in (colour_case(start_chromium, "Chromium", "display-p3"),
                                 colour_case(start_chromium, "Chromium", "srgb"),
                                 colour_case(start_firefox, "Firefox", "display-p3"),
                                 colour_case(start_firefox, "Firefox", "srgb"))}
# The P3 cases' output; the sRGB ones take kiln's default (sRGB).
CASE_CONFIG = {name: "[output HEADLESS-1]\ncolor-profile=p3\n" for name in CASES if name.endswith("displayp3")}


if __name__ == "__main__":
    main(CASES, CASE_CONFIG)
