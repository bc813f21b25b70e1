#!/usr/bin/env python3
"""color-representation-v1 on headless kiln, seen in grim's screenshots against references computed here: P010
colour bars (10-bit codes in the high bits of 16-bit samples, a memfd dma-buf that kiln samples as R16 and GR1616
planes) with BT.601, BT.709 and BT.2020 in both ranges come out as the 10-bit equations decode them within 1 code
value (and as the published bar levels within 1); NV12 chroma with a corner of four colours shows, for no chroma
location (centred, kiln's default), types 0, 2 and 5, the colours bilinear filtering at the H.273 sample positions
predicts within 2, and the types differ where the reference says they do; ARGB8888 patches over a known background
with straight, premultiplied optical and premultiplied electrical (and unset) alpha equal a Python reference of
source-over blending: straight c a + bg (1 - a), optical a OETF(min(EOTF(E) / a, 1)) + bg (1 - a) with the sRGB
curves, electrical E + bg (1 - a)."""
import mmap
import os
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test, skip  # noqa: E402
from wayland_wire import ARGB8888, Connection, MappedShmBuffer, Toplevel  # noqa: E402

MANAGER = "wp_color_representation_manager_v1"
SURFACE = "wp_color_representation_surface_v1"
ELECTRICAL, OPTICAL, STRAIGHT = 0, 1, 2
BT709, BT601, BT2020 = 2, 4, 6
FULL, LIMITED = 1, 2
TYPE_0, TYPE_2, TYPE_5 = 1, 3, 6
NV12 = int.from_bytes(b"NV12", "little")
P010 = int.from_bytes(b"P010", "little")
LINEAR = 0
BACKGROUND = (0x20, 0x60, 0xa0)

WEIGHTS = {BT601: (0.299, 0.114), BT709: (0.2126, 0.0722), BT2020: (0.2627, 0.0593)}
NAMES = {BT601: "BT.601", BT709: "BT.709", BT2020: "BT.2020"}
RANGES = {FULL: "full", LIMITED: "limited"}
BARS = [(.75, .75, .75), (.75, .75, 0), (0, .75, .75), (0, .75, 0), (.75, 0, .75), (.75, 0, 0), (0, 0, .75),
        (0, 0, 0), (1, 1, 1)]
BAR_W, HEIGHT = 16, 32
WIDTH = BAR_W * len(BARS)
MARK = (0x12, 0x34, 0x56)


def encode(level, coefficients, rng, bits):
    """Y'CbCr codes at `bits`: limited (16 + 219 Y) 2^(n-8), (128 + 224 C) 2^(n-8) (BT.2020-2 table 5); full
    (2^n - 1) Y, 2^(n-1) + (2^n - 1) C."""
    kr, kb = WEIGHTS[coefficients]
    r, g, b = level
    y = kr * r + (1 - kr - kb) * g + kb * b
    cb, cr = (b - y) / (2 * (1 - kb)), (r - y) / (2 * (1 - kr))
    q, top = 2 ** (bits - 8), 2 ** bits - 1
    code = lambda v: max(0, min(top, round(v)))  # noqa: E731
    if rng == LIMITED:
        return code((16 + 219 * y) * q), code((128 + 224 * cb) * q), code((128 + 224 * cr) * q)
    return code(top * y), code(2 ** (bits - 1) + top * cb), code(2 ** (bits - 1) + top * cr)


def decode(codes, coefficients, rng, bits):
    """The inverse on (possibly interpolated) codes, as 8-bit RGB."""
    kr, kb = WEIGHTS[coefficients]
    yc, cbc, crc = codes
    q, top, half = 2 ** (bits - 8), 2 ** bits - 1, 2 ** (bits - 1)
    if rng == LIMITED:
        y, cb, cr = (yc - 16 * q) / (219 * q), (cbc - 128 * q) / (224 * q), (crc - 128 * q) / (224 * q)
    else:
        y, cb, cr = yc / top, (cbc - half) / top, (crc - half) / top
    r = y + 2 * (1 - kr) * cr
    b = y + 2 * (1 - kb) * cb
    g = (y - kr * r - kb * b) / (1 - kr - kb)
    return tuple(max(0, min(255, round(v * 255))) for v in (r, g, b))


def dmabuf_buffer(conn, dmabuf, fourcc, width, height, luma, chroma, sample_bytes):
    """A two-plane linux-dmabuf wl_buffer in one memfd: `luma` rows then `chroma` rows, tightly packed."""
    luma_stride = width * sample_bytes
    fd = os.memfd_create("kiln-colour-representation", os.MFD_CLOEXEC)
    try:
        os.ftruncate(fd, len(luma) + len(chroma))
        with mmap.mmap(fd, len(luma) + len(chroma)) as m:
            m.write(luma + chroma)
        params = conn.create("zwp_linux_buffer_params_v1", dmabuf, 1)
        conn.send(params, 1, ("u", 0), ("u", 0), ("u", luma_stride), ("u", 0), ("u", LINEAR), fds=[fd])
        conn.send(params, 1, ("u", 1), ("u", len(luma)), ("u", luma_stride), ("u", 0), ("u", LINEAR), fds=[fd])
        return conn.create("wl_buffer", params, 3, ("i", width), ("i", height), ("u", fourcc), ("u", 0))
    finally:
        os.close(fd)


def p010_bars(conn, dmabuf, coefficients, rng):
    codes = [encode(level, coefficients, rng, 10) for level in BARS]
    s16 = lambda c: struct.pack("<H", c << 6)  # noqa: E731  the 10 bits in the high bits
    row = b"".join(s16(codes[x // BAR_W][0]) for x in range(WIDTH))
    pairs = b"".join(s16(codes[(2 * i) // BAR_W][1]) + s16(codes[(2 * i) // BAR_W][2]) for i in range(WIDTH // 2))
    return dmabuf_buffer(conn, dmabuf, P010, WIDTH, HEIGHT, row * HEIGHT, pairs * (HEIGHT // 2), 2)


# Chroma siting: an NV12 picture of the window's size, luma flat, chroma in four quadrants of these colours.
SIT_W, SIT_H = WIDTH, HEIGHT
QUADRANTS = [(.8, .1, .1), (.1, .8, .1), (.1, .1, .8), (.8, .8, .1)]
SIT_STANDARD = BT709
LUMA = 110


def quadrant_codes(cx, cy):
    return encode(QUADRANTS[(cx >= SIT_W // 4) + 2 * (cy >= SIT_H // 4)], SIT_STANDARD, FULL, 8)


def siting_buffer(conn, dmabuf):
    luma = bytes([LUMA]) * (SIT_W * SIT_H)
    chroma = b"".join(bytes(quadrant_codes(cx, cy)[1:]) for cy in range(SIT_H // 2) for cx in range(SIT_W // 2))
    return dmabuf_buffer(conn, dmabuf, NV12, SIT_W, SIT_H, luma, chroma, 1)


def siting_reference(chroma_x, chroma_y):
    """What bilinear filtering shows when chroma sample (k, j) sits at luma (2k + chroma_x, 2j + chroma_y): luma
    pixel (x, y) reads chroma position ((x - chroma_x) / 2, (y - chroma_y) / 2), clamped to the picture."""
    cw, ch = SIT_W // 2, SIT_H // 2
    out = {}
    for y in range(SIT_H):
        for x in range(SIT_W):
            px = min(max((x - chroma_x) / 2, 0), cw - 1)
            py = min(max((y - chroma_y) / 2, 0), ch - 1)
            k, j = min(int(px), cw - 2), min(int(py), ch - 2)
            tx, ty = px - k, py - j
            mixed = []
            for channel in (1, 2):
                top = (1 - tx) * quadrant_codes(k, j)[channel] + tx * quadrant_codes(k + 1, j)[channel]
                bottom = (1 - tx) * quadrant_codes(k, j + 1)[channel] + tx * quadrant_codes(k + 1, j + 1)[channel]
                mixed.append((1 - ty) * top + ty * bottom)
            out[x, y] = decode((LUMA, *mixed), SIT_STANDARD, FULL, 8)
    return out


# Alpha: patches of (linear or straight colour, alpha) side by side in an ARGB8888 buffer of the window's size.
PATCHES = [((1.0, 0.5, 0.2), 0.5), ((0.3, 0.9, 0.6), 0.25), ((0.8, 0.8, 0.8), 0.75), ((0.05, 0.4, 1.0), 0.6)]
PATCH_W, PATCH_H = WIDTH // len(PATCHES), HEIGHT


def srgb_eotf(e):
    return e / 12.92 if e <= 0.04045 else ((e + 0.055) / 1.055) ** 2.4


def srgb_oetf(v):
    return v * 12.92 if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055


def alpha_pixel(colour, a, mode):
    """The 8-bit ARGB a client in `mode` stores for `colour` (encoded for straight and electrical, linear light for
    optical) at alpha `a`."""
    a8 = round(a * 255)
    if mode == STRAIGHT:
        rgb = [round(c * 255) for c in colour]
    elif mode == OPTICAL:
        rgb = [round(srgb_oetf(c * a8 / 255) * 255) for c in colour]
    else:
        rgb = [round(c * a8) for c in colour]
    return a8, rgb


def alpha_reference(colour, a, mode):
    """Source over BACKGROUND with what the buffer holds, as the protocol defines each mode."""
    a8, rgb = alpha_pixel(colour, a, mode)
    alpha = a8 / 255
    out = []
    for e8, bg in zip(rgb, BACKGROUND):
        e = e8 / 255
        if mode == STRAIGHT:
            premultiplied = e * alpha
        elif mode == OPTICAL:
            premultiplied = alpha * srgb_oetf(min(srgb_eotf(e) / alpha, 1)) if alpha > 0 else 0
        else:
            premultiplied = e
        out.append(round((premultiplied + bg / 255 * (1 - alpha)) * 255))
    return tuple(out)


def alpha_buffer(conn, mode):
    buffer = MappedShmBuffer(conn, PATCH_W * len(PATCHES), PATCH_H, ARGB8888)
    for y in range(PATCH_H):
        for i, (colour, a) in enumerate(PATCHES):
            a8, (r, g, b) = alpha_pixel(colour, a, mode)
            buffer.map.seek((y * buffer.width + i * PATCH_W) * 4)
            buffer.map.write(struct.pack("=I", a8 << 24 | r << 16 | g << 8 | b) * PATCH_W)
    return buffer


def show(conn, surface, buffer, width, height):
    conn.send(surface, 1, ("o", buffer), ("i", 0), ("i", 0))
    conn.send(surface, 2, ("i", 0), ("i", 0), ("i", width), ("i", height))
    conn.send(surface, 6)
    conn.roundtrip()


def find_window(kiln):
    shot = kiln.screenshot()
    for y in range(shot.height):
        for x in range(shot.width):
            if shot.at(x, y) == MARK:
                return x, y
    raise AssertionError("the window's marker colour is not on screen")


def worst(got, want):
    return max(abs(a - b) for g, w in zip(got, want) for a, b in zip(g, w))


def wait_pixels(kiln, points, want, tolerance, what):
    """Waits until the screenshot's pixels at `points` are within `tolerance` of `want`; returns the worst error."""
    last = []

    def close():
        shot = kiln.screenshot()
        last[:] = [shot.at(x, y) for x, y in points]
        return worst(last, want) <= tolerance
    try:
        kiln.wait_for(close, what, timeout=10)
    except AssertionError:
        bad = [(p, g, w) for p, g, w in zip(points, last, want) if worst([g], [w]) > tolerance]
        raise AssertionError(f"{what}: {len(bad)} pixels off, first {bad[:4]}")
    return worst(last, want)


def offered_formats(conn):
    dmabuf = conn.bind("zwp_linux_dmabuf_v1", 3)
    conn.roundtrip()
    return dmabuf, {e.args("uuu")[0] for e in conn.take(dmabuf, 1)}  # v3: modifier events only


def main():
    background = "0x%02x%02x%02x" % BACKGROUND
    with Kiln(background=background) as kiln:
        with Connection(kiln.client_env) as conn:
            manager = conn.bind(MANAGER, 1)
            conn.roundtrip()
            alpha = sorted(e.args("u")[0] for e in conn.take(manager, 0))
            check(alpha == [ELECTRICAL, OPTICAL, STRAIGHT], f"all three alpha modes are advertised ({alpha})")
            dmabuf, formats = offered_formats(conn)
            window = Toplevel(conn, "colour representation")
            window.commit()
            window.map(WIDTH, HEIGHT, color=0xff000000 | MARK[0] << 16 | MARK[1] << 8 | MARK[2])
            kiln.wait_for(lambda: kiln.screenshot().count(MARK, tolerance=0) == WIDTH * HEIGHT, "the marker window")
            x0, y0 = find_window(kiln)
            obj = conn.create(SURFACE, manager, 1, ("o", window.surface))

            # P010 bars.
            if P010 not in formats:
                skip("kiln's renderer does not sample P010 here, so linux-dmabuf does not offer it")
            check(True, "linux-dmabuf offers P010")
            centres = [(x0 + i * BAR_W + BAR_W // 2, y0 + HEIGHT // 2) for i in range(len(BARS))]
            for coefficients in (BT601, BT709, BT2020):
                for rng in (LIMITED, FULL):
                    name = f"P010 {NAMES[coefficients]} {RANGES[rng]}"
                    want = [decode(encode(level, coefficients, rng, 10), coefficients, rng, 10) for level in BARS]
                    nominal = [tuple(round(v * 255) for v in level) for level in BARS]
                    check(worst(want, nominal) <= 1, f"{name}: the 10-bit codes decode to the published bar levels "
                          f"within 1 ({worst(want, nominal)})")
                    conn.send(obj, 2, ("u", coefficients), ("u", rng))
                    show(conn, window.surface, p010_bars(conn, dmabuf, coefficients, rng), WIDTH, HEIGHT)
                    err = wait_pixels(kiln, centres, want, 1, f"{name} bars")
                    check(True, f"{name}: every bar within 1 of the reference (max error {err})")

            # Chroma siting: unset (kiln's centred default), then types 0, 2 and 5.
            conn.send(obj, 2, ("u", SIT_STANDARD), ("u", FULL))
            points = [(x, y) for y in range(SIT_H) for x in range(SIT_W)]
            on_screen = [(x0 + x, y0 + y) for x, y in points]
            references = {}
            for location, (cx, cy), name in ((None, (0.5, 0.5), "unset (centred)"), (TYPE_0, (0, 0.5), "type 0"),
                                             (TYPE_2, (0, 0), "type 2"), (TYPE_5, (0.5, 1), "type 5")):
                if location:
                    conn.send(obj, 3, ("u", location))
                reference = siting_reference(cx, cy)
                references[name] = reference
                show(conn, window.surface, siting_buffer(conn, dmabuf), SIT_W, SIT_H)
                err = wait_pixels(kiln, on_screen, [reference[p] for p in points], 2, f"chroma location {name}")
                check(True, f"chroma location {name}: all {len(points)} pixels within 2 of the bilinear reference "
                      f"at chroma ({cx}, {cy}) (max error {err})")
            for name in ("type 0", "type 2", "type 5"):
                moved = worst([references[name][p] for p in points], [references["unset (centred)"][p] for p in points])
                check(moved > 20, f"{name} moves the colours at the edges away from centred chroma (by up to {moved})")

            # Alpha: a new surface state each time (ARGB8888 has no coefficients to set).
            conn.send(obj, 0)
            conn.send(window.surface, 6)
            obj = conn.create(SURFACE, manager, 1, ("o", window.surface))
            centres = [(x0 + i * PATCH_W + PATCH_W // 2, y0 + PATCH_H // 2) for i in range(len(PATCHES))]
            results = {}
            for mode, name in ((None, "unset"), (STRAIGHT, "straight"), (OPTICAL, "premultiplied_optical"),
                               (ELECTRICAL, "premultiplied_electrical")):
                if mode is not None:
                    conn.send(obj, 1, ("u", mode))
                stored = ELECTRICAL if mode is None else mode
                want = [alpha_reference(colour, a, stored) for colour, a in PATCHES]
                buffer = alpha_buffer(conn, stored)
                show(conn, window.surface, buffer.obj, buffer.width, buffer.height)
                err = wait_pixels(kiln, centres, want, 1, f"{name} alpha over the background")
                results[name] = want
                check(True, f"{name} alpha over {background}: every patch within 1 of the reference (max error "
                      f"{err}, {want})")
            # The same stored bytes read as another mode would look different: the modes are really applied.
            straight_bytes = [alpha_pixel(colour, a, STRAIGHT) for colour, a in PATCHES]
            as_electrical = [tuple(round(e + bg * (1 - a8 / 255)) for e, bg in zip(rgb, BACKGROUND))
                             for a8, rgb in straight_bytes]
            check(worst(as_electrical, results["straight"]) > 20,
                  "straight bytes read as premultiplied would differ by more than 20 (the reference is not trivial)")
            optical_bytes = [alpha_pixel(colour, a, OPTICAL) for colour, a in PATCHES]
            optical_as_electrical = [tuple(round(e + bg * (1 - a8 / 255)) for e, bg in zip(rgb, BACKGROUND))
                                     for a8, rgb in optical_bytes]
            check(worst(optical_as_electrical, results["premultiplied_optical"]) > 20,
                  "optical bytes read as premultiplied electrical would differ by more than 20")
        check(kiln.alive(), "kiln runs on")


run_test(main)
