#!/usr/bin/env python3
"""color-management-v1 shown: a window whose buffer holds six colour patches is given a parametric description
(Display P3 primaries with the sRGB curve; Adobe RGB with gamma 2.2) and the patches on screen (grim) and in an
ext-image-copy-capture frame equal what those values mean on an sRGB display, computed here with numpy from the
published primaries (SMPTE EG 432-1, Adobe RGB (1998), IEC 61966-2-1), the curves' formulas and a per-channel clip
(doc/colour.md: relative colorimetric, both whites D65), computed here in plain Python, within 1 code value; unset, the same bytes are shown as
they are again (sRGB, the unconverted path)."""
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402
from wayland_wire import Connection, MappedShmBuffer, Toplevel  # noqa: E402
from output_frame import capture_output_frame  # noqa: E402

MANAGER = "wp_color_manager_v1"
GET_SURFACE, PARAMS_CREATOR = 2, 5
RELATIVE = 1
P_DISPLAY_P3, P_ADOBE = 9, 10
TF_GAMMA22, TF_SRGB = 2, 9
P_CREATE, P_TF_NAMED, P_PRIMARIES_NAMED = 0, 1, 3
PATCHES = [(200, 30, 30), (30, 200, 30), (30, 30, 200), (128, 128, 128), (255, 255, 255), (230, 180, 40)]
PATCH, HEIGHT = 16, 16
WIDTH = PATCH * len(PATCHES)
MARK = (0x12, 0x34, 0x56)
D65 = (0.3127, 0.3290)
PRIMARIES = {"srgb": ((0.64, 0.33), (0.30, 0.60), (0.15, 0.06)),
             "display-p3": ((0.680, 0.320), (0.265, 0.690), (0.150, 0.060)),
             "adobe-rgb": ((0.64, 0.33), (0.21, 0.71), (0.15, 0.06))}


def inverse(m):
    """A 3x3 matrix's inverse by its adjugate."""
    (a, b, c), (d, e, f), (g, h, i) = m
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    adj = [[e * i - f * h, c * h - b * i, b * f - c * e],
           [f * g - d * i, a * i - c * g, c * d - a * f],
           [d * h - e * g, b * g - a * h, a * e - b * d]]
    return [[v / det for v in row] for row in adj]


def product(m, n):
    return [[sum(m[r][k] * n[k][c] for k in range(3)) for c in range(3)] for r in range(3)]


def to_xyz(primaries):
    """RGB → XYZ for these primaries with a D65 white at Y = 1 (SMPTE RP 177)."""
    columns = [[x / y, 1.0, (1 - x - y) / y] for x, y in primaries]  # one per primary
    wx, wy = D65
    white = [wx / wy, 1.0, (1 - wx - wy) / wy]
    m = [[columns[c][r] for c in range(3)] for r in range(3)]
    scale = [sum(row[k] * white[k] for k in range(3)) for row in inverse(m)]
    return [[m[r][c] * scale[c] for c in range(3)] for r in range(3)]


def srgb_decode(v):
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def srgb_encode(v):
    return v * 12.92 if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055


def reference(primaries, decode):
    """What each patch's bytes mean, in 8-bit sRGB."""
    matrix = product(inverse(to_xyz(PRIMARIES["srgb"])), to_xyz(PRIMARIES[primaries]))
    out = []
    for patch in PATCHES:
        linear = [decode(c / 255) for c in patch]
        converted = [min(1.0, max(0.0, sum(matrix[r][k] * linear[k] for k in range(3)))) for r in range(3)]
        out.append(tuple(round(srgb_encode(c) * 255) for c in converted))
    return out


def described(conn, manager, primaries, tf):
    creator = conn.create("wp_image_description_creator_params_v1", manager, PARAMS_CREATOR)
    conn.send(creator, P_PRIMARIES_NAMED, ("u", primaries))
    conn.send(creator, P_TF_NAMED, ("u", tf))
    description = conn.create("wp_image_description_v1", creator, P_CREATE)
    event = conn.dispatch_until(lambda e: e.obj == description and e.opcode in (0, 1))
    conn.events.remove(event)
    check(event.opcode == 1, f"the description (primaries {primaries}, curve {tf}) is ready")
    return description


def patches_buffer(conn):
    buffer = MappedShmBuffer(conn, WIDTH, HEIGHT, name="kiln-colour-patches")
    for y in range(HEIGHT):
        for x in range(WIDTH):
            r, g, b = PATCHES[x // PATCH]
            buffer.map[(y * WIDTH + x) * 4:(y * WIDTH + x + 1) * 4] = struct.pack("=I", 0xff000000 | r << 16 | g << 8 | b)
    return buffer


def on_screen(kiln, origin):
    shot = kiln.screenshot()
    x0, y0 = origin
    return [shot.at(x0 + i * PATCH + PATCH // 2, y0 + HEIGHT // 2) for i in range(len(PATCHES))]


def captured(kiln, origin):
    """The patches as ext-image-copy-capture draws the output."""
    frame = capture_output_frame(kiln)
    x0, y0 = origin
    return [frame.at(x0 + i * PATCH + PATCH // 2, y0 + HEIGHT // 2) for i in range(len(PATCHES))]


def worst(got, want):
    return max(abs(a - b) for g, w in zip(got, want) for a, b in zip(g, w))


def main():
    with Kiln(size="320x240") as kiln, Connection(kiln.client_env) as conn:
        manager = conn.bind(MANAGER, 1)
        window = Toplevel(conn, "colour patches")
        window.commit()
        window.map(WIDTH, HEIGHT, color=0xff000000 | MARK[0] << 16 | MARK[1] << 8 | MARK[2])
        kiln.wait_for(lambda: kiln.screenshot().count(MARK, tolerance=0) == WIDTH * HEIGHT, "the marker window")
        shot = kiln.screenshot()
        origin = next((x, y) for y in range(shot.height) for x in range(shot.width) if shot.at(x, y) == MARK)
        buffer = patches_buffer(conn)
        surface_colour = conn.create("wp_color_management_surface_v1", manager, GET_SURFACE, ("o", window.surface))

        def show(description):
            if description is None:
                conn.send(surface_colour, 2)  # unset_image_description
            else:
                conn.send(surface_colour, 1, ("o", description), ("u", RELATIVE))  # set_image_description
            conn.send(window.surface, 1, ("o", buffer.obj), ("i", 0), ("i", 0))
            conn.send(window.surface, 2, ("i", 0), ("i", 0), ("i", WIDTH), ("i", HEIGHT))
            window.commit()
            conn.roundtrip()

        cases = [("Display P3, sRGB curve", described(conn, manager, P_DISPLAY_P3, TF_SRGB),
                  reference("display-p3", srgb_decode)),
                 ("Adobe RGB, gamma 2.2", described(conn, manager, P_ADOBE, TF_GAMMA22),
                  reference("adobe-rgb", lambda v: v ** 2.2)),
                 ("no description", None, PATCHES)]
        for name, description, want in cases:
            show(description)
            kiln.wait_for(lambda: worst(on_screen(kiln, origin), want) <= 1,
                          f"{name}: the patches on screen to be {want}", timeout=10)
            got = on_screen(kiln, origin)
            check(worst(got, want) <= 1, f"{name}: on screen {got}, reference {want}")
            copied = captured(kiln, origin)
            check(worst(copied, want) <= 1, f"{name}: in an ext-image-copy-capture frame {copied}")
        # The conversion must have changed something: a test whose reference equals its input proves nothing.
        check(reference("display-p3", srgb_decode) != PATCHES, "the P3 reference differs from the bytes")


if __name__ == "__main__":
    run_test(main)
