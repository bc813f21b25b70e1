#!/usr/bin/env python3
"""Colour conversion at fractional scale: on a headless output at kiln.ini scale=1.5 a wp_fractional_scale_v1 client
draws a window of six flat colour patches through wp_viewporter, once 1:1 (a buffer of 1.5x the logical size) and
once scaled up by kiln (a buffer of the logical size, filtered), and every pixel inside each patch (4 px from its
edges, where filtering mixes neighbours) equals, on screen (grim) and in an ext-image-copy-capture frame, the
reference computed outside kiln within 1 code value, for surface description x output description: sRGB on a
Display P3 output (tests/protocol/output_colour.py's reference), Display P3 on sRGB (color_management_pixels.py's),
BT.2020 PQ on sRGB tone mapped by BT.2390, BT.2020 HLG on sRGB, and sRGB on a BT.2020 PQ output
(tests/lib/colour_reference.py's)."""
import re
import struct
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, MappedShmBuffer, Toplevel  # noqa: E402
from output_frame import capture_output_frame  # noqa: E402
import color_management_pixels as cmp  # noqa: E402
import colour_reference as ref  # noqa: E402
import output_colour  # noqa: E402

SCALE = 1.5
PATCH = 16  # logical pixels a side; 24 output pixels at 1.5
MARGIN = 4  # output pixels from a patch's edge left out of the check
LOGICAL = (PATCH * len(cmp.PATCHES), PATCH)
# HDR signals in the range where the tone curves do something visible and few channels clip.
HDR_PATCHES = [(150, 110, 90), (90, 140, 110), (100, 100, 150), (128, 128, 128), (160, 160, 160), (140, 120, 70)]
P_SRGB, P_BT2020, P_DISPLAY_P3 = 1, 6, 9
TF_SRGB, TF_PQ, TF_HLG = 9, 11, 13
RELATIVE = 1


def filled(conn, width, height, colour_of):
    """An XRGB8888 buffer whose pixel (x, y) is colour_of(x, width)."""
    buffer = MappedShmBuffer(conn, width, height, name="kiln-colour-fractional")
    row = b"".join(struct.pack("=I", 0xff000000 | r << 16 | g << 8 | b)
                   for r, g, b in (colour_of(x, width) for x in range(width)))
    for y in range(height):
        buffer.map[y * width * 4:(y + 1) * width * 4] = row
    return buffer


class Window:
    """A toplevel with a fractional-scale object, a viewport to LOGICAL and a color-management surface."""

    def __init__(self, kiln, conn):
        self.kiln, self.conn = kiln, conn
        self.manager = conn.bind("wp_color_manager_v1", 1)
        fractional = conn.bind("wp_fractional_scale_manager_v1", 1)
        self.window = Toplevel(conn, "colour at fractional scale")
        self.fractional = conn.create("wp_fractional_scale_v1", fractional, 1, ("o", self.window.surface))
        viewport = conn.create("wp_viewport", conn.bind("wp_viewporter", 1), 1, ("o", self.window.surface))
        conn.send(viewport, 2, ("i", LOGICAL[0]), ("i", LOGICAL[1]))  # set_destination
        self.colour = conn.create("wp_color_management_surface_v1", self.manager, 2, ("o", self.window.surface))
        self.window.commit()
        self.window.wait_configure()
        told = [e.args("u")[0] for e in conn.take(self.fractional, 0)]
        check(told == [round(SCALE * 120)], f"the client is told {round(SCALE * 120)}/120 ({told})")
        self.size = (round(LOGICAL[0] * SCALE), round(LOGICAL[1] * SCALE))
        # White, undescribed and 1:1, shows where the window is on every output (nothing converts it to black).
        self.attach(filled(conn, *self.size, lambda x, w: (255, 255, 255)))
        self.origin = kiln.wait_for(self.white_box, "the white window at its 1:1 size", timeout=10)

    def white_box(self):
        shot = self.kiln.screenshot()
        nonblack = [m.start() // 3 for m in re.finditer(rb"[^\x00]", shot.pixels)]
        if not nonblack:
            return None
        first, last = nonblack[0], nonblack[-1]
        x0, y0, x1, y1 = first % shot.width, first // shot.width, last % shot.width, last // shot.width
        # Exactly its 1:1 size, its edge rows and columns whole pixels like its middle, not partly covered
        # (tests/protocol/fractional_position.py).
        middle = shot.at((x0 + x1) // 2, (y0 + y1) // 2)
        edges = (shot.at(x0, y0), shot.at(x1, y1), shot.at(x1, y0), shot.at(x0, y1))
        fits = (x1 - x0 + 1, y1 - y0 + 1) == self.size and all(e == middle for e in edges)
        return (x0, y0) if fits else None

    def attach(self, buffer, description=None):
        if description is not None:
            self.conn.send(self.colour, 1, ("o", description), ("u", RELATIVE))  # set_image_description
        self.conn.send(self.window.surface, 1, ("o", buffer.obj), ("i", 0), ("i", 0))
        self.conn.send(self.window.surface, 9, ("i", 0), ("i", 0), ("i", buffer.width), ("i", buffer.height))
        self.window.commit()
        self.conn.roundtrip()

    def description(self, primaries, tf):
        return cmp.described(self.conn, self.manager, primaries, tf)

    def show_patches(self, patches, description, one_to_one):
        """The patches 1:1 (a buffer of the output pixels they cover) or at the logical size, scaled by kiln."""
        width, height = self.size if one_to_one else LOGICAL
        self.attach(filled(self.conn, width, height, lambda x, w: patches[x * len(patches) // w]), description)


def interior_worst(image, origin, want):
    """The largest difference from `want` over every pixel inside each patch, and where it is."""
    x0, y0 = origin
    side = round(PATCH * SCALE)
    worst, where = 0, None
    for i, colour in enumerate(want):
        for y in range(y0 + MARGIN, y0 + side - MARGIN):
            for x in range(x0 + i * side + MARGIN, x0 + (i + 1) * side - MARGIN):
                got = image.at(x, y)
                d = max(abs(a - b) for a, b in zip(got, colour))
                if d > worst:
                    worst, where = d, (i, x, y, got)
    return worst, where


def case(window, name, patches, description, want):
    check(want != [tuple(p) for p in patches], f"{name}: the reference differs from the bytes ({want})")
    kiln = window.kiln
    for one_to_one in (True, False):
        how = "1:1 at 1.5" if one_to_one else "scaled by 1.5"
        window.show_patches(patches, description, one_to_one)
        kiln.wait_for(lambda: interior_worst(kiln.screenshot(), window.origin, want)[0] <= 1,
                      f"{name} ({how}): the patches' interiors to be {want}", timeout=15)
        worst, where = interior_worst(kiln.screenshot(), window.origin, want)
        check(worst <= 1, f"{name} ({how}): on screen every interior pixel within 1 of {want} (worst {worst} "
                          f"at {where})")
        worst, where = interior_worst(capture_output_frame(kiln), window.origin, want)
        check(worst <= 1, f"{name} ({how}): and in an ext-image-copy-capture frame (worst {worst} at {where})")


def on_output(tmp, profile, cases):
    config = Path(tmp) / f"{profile}.ini"
    config.write_text(f"[output HEADLESS-1]\nscale={SCALE}\ncolor-profile={profile}\n")
    # 640x480 logical, whole: grim resamples an output whose pixels / scale is not (doc/using-kiln.md).
    with Kiln("--config", str(config), size="960x720") as kiln, Connection(kiln.client_env) as conn:
        window = Window(kiln, conn)
        for name, patches, named, want in cases:
            case(window, name, patches, window.description(*named) if named else None, want)


def main():
    need("grim")
    with tempfile.TemporaryDirectory(prefix="kiln-colour-fractional-") as tmp:
        on_output(tmp, "srgb", [
            ("Display P3 on sRGB", cmp.PATCHES, (P_DISPLAY_P3, TF_SRGB), cmp.reference("display-p3", cmp.srgb_decode)),
            ("BT.2020 PQ on sRGB (BT.2390)", HDR_PATCHES, (P_BT2020, TF_PQ), ref.pq_on_srgb(HDR_PATCHES)),
            ("BT.2020 HLG on sRGB", HDR_PATCHES, (P_BT2020, TF_HLG), ref.hlg_on_srgb(HDR_PATCHES)),
        ])
        on_output(tmp, "p3", [("sRGB on Display P3", cmp.PATCHES, None, output_colour.srgb_on_p3())])
        on_output(tmp, "bt2020-pq", [("sRGB on BT.2020 PQ", cmp.PATCHES, None, ref.srgb_on_pq(cmp.PATCHES))])


if __name__ == "__main__":
    run_test(main)
