#!/usr/bin/env python3
"""Surfaces at logical positions that fall between output pixels, on a headless kiln at kiln.ini scale=1.5 and 1.25:
a wp_fractional_scale_v1 window and subsurfaces at odd logical offsets (y = 1, 3, 5 beside it, one meeting its bottom
edge) each draw a 1:1 buffer of a per-pixel pattern that any resampling changes, and the screenshot (grim) and an
ext-image-copy-capture frame of the output show every buffer's pixels exactly (0 differences) at a whole output
pixel: the window's own, its logical position times the scale not whole, and each subsurface at the window's pixel
plus its offset times the scale rounded once (no gap, no overlap at the shared edge); a capture of the window alone
(ext-foreign-toplevel source) shows them the same way from its corner; layer surfaces at logical (1, 1), (21, 3)
and (41, 5) start at exactly round(position x scale), every pixel exact."""
import struct
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from capture_sources import one_frame, toplevel_source  # noqa: E402
from checkerboard import shm_buffer_of  # noqa: E402
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from output_frame import bgrx_screenshot, capture_output_frame  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402

WINDOW = (71, 41)  # logical; with its subsurfaces 142x46, centred at (249, 217) at 1.5 and (329, 277) at 1.25
# Subsurfaces: logical offset in the window and logical size. Three beside the window at odd x and y = 1, 3, 5, and
# one meeting the window's bottom edge (y = 41, odd) at an odd x.
SUBSURFACES = [((WINDOW[0] + 3, 1), (21, 11)), ((WINDOW[0] + 27, 3), (19, 13)), ((WINDOW[0] + 49, 5), (22, 9)),
               ((5, WINDOW[1]), (33, 5))]
# Outputs whose logical size is whole at their scale (640x480, 800x600): grim 1.4 takes its scale from xdg-output's
# logical width (whole pixels) and stretches an output where pixels / scale is not whole, which would resample the
# screenshot itself (doc/using-kiln.md, "HiDPI").
TITLE = "fractional position"
# Layer surfaces (overlay, anchored top and left): logical position on the output (its margins), logical size, tag.
LAYERS = [((1, 1), (15, 9), 210), ((21, 3), (13, 11), 230), ((41, 5), (17, 7), 250)]
OUTPUTS = [("1.5", 180, "960x720"), ("1.25", 150, "1000x750")]


def rounded(length, scale):
    """length x scale rounded half away from zero, as the protocol asks of a client."""
    return int(length * scale + 0.5)


def texel(x, y, tag):
    """A pattern in which neighbouring pixels differ in steps no blend reproduces: red and green jump by 73 and 151
    (mod 256) from pixel to pixel, blue names the surface."""
    return ((x * 73) % 256, (y * 151) % 256, tag)


def pattern(conn, width, height, tag):
    rows = (b"".join(struct.pack("=I", 0xff000000 | r << 16 | g << 8 | b)
                     for r, g, b in (texel(x, y, tag) for x in range(width))) for y in range(height))
    return shm_buffer_of(conn, width, height, rows)


def find(shot, tag):
    """The output pixel where the surface tagged `tag` has its texels (0, 0) and (1, 1), or None."""
    first, second = bytes(texel(0, 0, tag)), texel(1, 1, tag)
    at = shot.pixels.find(first)
    while at >= 0:
        if at % 3 == 0:
            x, y = at // 3 % shot.width, at // 3 // shot.width
            if x + 1 < shot.width and y + 1 < shot.height and shot.at(x + 1, y + 1) == second:
                return (x, y)
        at = shot.pixels.find(first, at + 1)
    return None


def differences(shot, origin, size, tag):
    return sum(1 for y in range(size[1]) for x in range(size[0])
               if shot.at(origin[0] + x, origin[1] + y) != texel(x, y, tag))


def capture_window(kiln, title):
    """One ext-image-copy-capture frame of the toplevel titled `title` (ext-foreign-toplevel source), in the
    output's scale, as a Screenshot."""
    with Connection(kiln.client_env) as conn:
        width, height, bgrx, _ = one_frame(conn, toplevel_source(conn, title), what="the window's capture frame")
    return bgrx_screenshot(width, height, bgrx)


def layer_surfaces(kiln, conn, scale, scale_text):
    """LAYERS mapped with 1:1 buffers: each is at exactly round(position x scale) on the output, every pixel exact."""
    shell = conn.bind("zwlr_layer_shell_v1", 4)
    compositor = conn.bind("wl_compositor", 4)
    viewporter = conn.bind("wp_viewporter", 1)
    shown = []
    for (x, y), logical, tag in LAYERS:
        surface = conn.create("wl_surface", compositor, 0)
        layer = conn.create("zwlr_layer_surface_v1", shell, 0, ("o", surface), ("o", 0), ("u", 3),  # overlay
                            ("s", "fractional-position"))
        conn.send(layer, 0, ("u", logical[0]), ("u", logical[1]))  # set_size
        conn.send(layer, 1, ("u", 1 | 4))  # set_anchor: top, left
        conn.send(layer, 3, ("i", y), ("i", 0), ("i", 0), ("i", x))  # set_margin: top right bottom left
        conn.send(conn.create("wp_viewport", viewporter, 1, ("o", surface)), 2, ("i", logical[0]), ("i", logical[1]))
        conn.send(surface, 6)  # commit: asks for the first configure
        event = conn.dispatch_until(lambda e, layer=layer: e.obj == layer and e.opcode == 0)
        conn.events.remove(event)
        conn.send(layer, 6, ("u", event.args("u")[0]))  # ack_configure
        pixels = (rounded(logical[0], scale), rounded(logical[1], scale))
        conn.send(surface, 1, ("o", pattern(conn, *pixels, tag)), ("i", 0), ("i", 0))
        conn.send(surface, 9, ("i", 0), ("i", 0), ("i", pixels[0]), ("i", pixels[1]))  # damage_buffer
        conn.send(surface, 6)
        shown.append(((x, y), pixels, tag))
    conn.roundtrip()
    kiln.wait_for(lambda: all(find(kiln.screenshot(), tag) for _, _, tag in shown), "the layer surfaces drawn")
    for name, shot in (("screenshot", kiln.screenshot()), ("capture frame", capture_output_frame(kiln))):
        for (x, y), pixels, tag in shown:
            want = (rounded(x, scale), rounded(y, scale))
            place = find(shot, tag)
            check(place == want, f"scale={scale_text} ({name}): the layer surface at logical ({x}, {y}) starts at "
                                 f"output pixel {want} ({x * scale}, {y * scale} rounded): {place}")
            wrong = differences(shot, want, pixels, tag)
            check(wrong == 0, f"scale={scale_text} ({name}): all {pixels[0]}x{pixels[1]} of its buffer pixels are "
                              f"shown 1:1, unfiltered ({wrong} differ)")


def at_scale(scale_text, expected_120ths, size):
    scale = expected_120ths / 120
    with tempfile.TemporaryDirectory(prefix="kiln-fractional-position-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text(f"[output HEADLESS-1]\nscale={scale_text}\n")
        with Kiln("--config", str(config), size=size) as kiln, Connection(kiln.client_env) as conn:
            manager = conn.bind("wp_fractional_scale_manager_v1", 1)
            viewporter = conn.bind("wp_viewporter", 1)
            subcompositor = conn.bind("wl_subcompositor", 1)
            window = Toplevel(conn, TITLE)
            fractional = conn.create("wp_fractional_scale_v1", manager, 1, ("o", window.surface))
            viewport = conn.create("wp_viewport", viewporter, 1, ("o", window.surface))
            conn.send(viewport, 2, ("i", WINDOW[0]), ("i", WINDOW[1]))  # set_destination
            surfaces = [(window.surface, WINDOW, None)]
            for offset, logical in SUBSURFACES:
                surface = conn.create("wl_surface", window.compositor, 0)
                subsurface = conn.create("wl_subsurface", subcompositor, 1, ("o", surface), ("o", window.surface))
                conn.send(subsurface, 1, ("i", offset[0]), ("i", offset[1]))  # set_position
                conn.send(conn.create("wp_viewport", viewporter, 1, ("o", surface)), 2, ("i", logical[0]),
                          ("i", logical[1]))
                surfaces.append((surface, logical, offset))
            window.commit()
            window.wait_configure()
            told = [e.args("u")[0] for e in conn.take(fractional, 0)]
            check(told == [expected_120ths], f"scale={scale_text}: the client is told {expected_120ths}/120 ({told})")

            # Subsurfaces first: synchronized, their buffers are applied with the window's commit.
            drawn = []
            for tag, (surface, logical, offset) in reversed(list(enumerate(surfaces, start=1))):
                pixels = (rounded(logical[0], scale), rounded(logical[1], scale))
                conn.send(surface, 1, ("o", pattern(conn, *pixels, tag * 40)), ("i", 0), ("i", 0))
                conn.send(surface, 9, ("i", 0), ("i", 0), ("i", pixels[0]), ("i", pixels[1]))  # damage_buffer
                if surface is window.surface:
                    window.commit()
                else:
                    conn.send(surface, 6)
                drawn.insert(0, (tag * 40, pixels, offset))
            conn.roundtrip()

            origin = kiln.wait_for(lambda: find(kiln.screenshot(), drawn[0][0]), "the window drawn")
            logical = (origin[0] / scale, origin[1] / scale)
            check(all(abs(v - round(v)) > 0.1 for v in logical),
                  f"scale={scale_text}: the window sits at an output pixel {origin} whose logical position "
                  f"({logical[0]:.2f}, {logical[1]:.2f}) is not whole: its logical position times the scale is not "
                  "whole")
            window_logical = (round(logical[0]), round(logical[1]))
            # The window captured alone (ext-foreign-toplevel source) is drawn the same way from its own origin.
            views = [("screenshot", kiln.screenshot(), origin), ("capture frame", capture_output_frame(kiln), origin),
                     ("window capture", capture_window(kiln, TITLE), (0, 0))]
            for name, shot, at in views:
                for tag, pixels, offset in drawn:
                    what = "the window" if offset is None else f"the subsurface at logical offset {offset}"
                    # Each node at its parent's pixel plus its own offset rounded once (visible_set.cpp).
                    want = at if offset is None else (at[0] + rounded(offset[0], scale),
                                                      at[1] + rounded(offset[1], scale))
                    place = find(shot, tag)
                    check(place == want, f"scale={scale_text} ({name}): {what} starts at output pixel {want} "
                                         f"(window at {window_logical} logical, {origin} in pixels): {place}")
                    # A window capture is ceil(size x scale) pixels; where a node's offset and size both round up
                    # (41 x 1.5 and 5 x 1.5 here) its last row lies past that edge, as it lies a row lower on the
                    # output than the window's logical size says.
                    shown = (min(pixels[0], shot.width - want[0]), min(pixels[1], shot.height - want[1]))
                    if name != "window capture":
                        check(shown == pixels, f"scale={scale_text} ({name}): {what} is whole on it ({shown})")
                    wrong = differences(shot, want, shown, tag)
                    check(wrong == 0, f"scale={scale_text} ({name}): all {shown[0]}x{shown[1]} of {what}'s buffer "
                                      f"pixels on it are shown 1:1, unfiltered ({wrong} differ)")
            layer_surfaces(kiln, conn, scale, scale_text)


def main():
    need("grim")
    for scale_text, expected_120ths, size in OUTPUTS:
        at_scale(scale_text, expected_120ths, size)


run_test(main)
