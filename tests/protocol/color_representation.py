#!/usr/bin/env python3
"""wp_color_representation_manager_v1 on headless kiln: the manager advertises the three alpha modes and
identity/full plus BT.601, BT.709 and BT.2020 in full and limited range, then done. NV12 colour bars (75% bars,
black, white) in a dma-buf (a memfd, which llvmpipe maps: kiln converts NV12 in its own shader, plane by plane)
encoded with each coefficient set and range from the standards' forward equations come out of a screenshot as the
same equations decode them (computed here in Python, independently of kiln) within 1 code value, and within 2 of the
published bar levels (191 and 255); without the protocol, and after the object is destroyed, the picture is read as
BT.601 limited range, as before; the values are double-buffered with wl_surface.commit. Errors: a second object
(surface_exists), an alpha mode outside the enum or an unsupported coefficients/range pair, identity coefficients on an NV12 buffer and
YCbCr coefficients or a chroma location on an RGB one at commit (pixel_format), requests on an inert object, an
invalid chroma location (wl_display invalid_method)."""
import mmap
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel, shm_buffer  # noqa: E402
from output_frame import capture_output_frame  # noqa: E402
from surface_errors import expect_surface_error  # noqa: E402

MANAGER = "wp_color_representation_manager_v1"
SURFACE = "wp_color_representation_surface_v1"
PREMULTIPLIED_ELECTRICAL, PREMULTIPLIED_OPTICAL, STRAIGHT = 0, 1, 2
IDENTITY, BT709, FCC, BT601, BT2020 = 1, 2, 3, 4, 6
FULL, LIMITED = 1, 2
TYPE_0 = 1
NV12 = int.from_bytes(b"NV12", "little")
LINEAR = 0

# Luma weights of red and blue: BT.601-7 2.5.1, BT.709-6 3.2, BT.2020-2 table 4 (non-constant luminance).
WEIGHTS = {BT601: (0.299, 0.114), BT709: (0.2126, 0.0722), BT2020: (0.2627, 0.0593)}
NAMES = {BT601: "BT.601", BT709: "BT.709", BT2020: "BT.2020"}
RANGES = {FULL: "full", LIMITED: "limited"}
# 75% bars (white, yellow, cyan, green, magenta, red, blue), then black and 100% white: the ends of each range.
BARS = [(.75, .75, .75), (.75, .75, 0), (0, .75, .75), (0, .75, 0), (.75, 0, .75), (.75, 0, 0), (0, 0, .75),
        (0, 0, 0), (1, 1, 1)]
BAR_W, HEIGHT = 16, 32
WIDTH = BAR_W * len(BARS)
MARK = (0x12, 0x34, 0x56)  # the window's first colour, to find where it lies


def encode(level, coefficients, rng):
    """8-bit Y'CbCr codes: E'Y = Kr R + Kg G + Kb B, E'Cb = (B - Y) / (2 (1 - Kb)), E'Cr = (R - Y) / (2 (1 - Kr));
    limited 16 + 219 Y, 128 + 224 C (BT.601 2.5.3); full 255 Y, 128 + 255 C."""
    kr, kb = WEIGHTS[coefficients]
    r, g, b = level
    y = kr * r + (1 - kr - kb) * g + kb * b
    cb, cr = (b - y) / (2 * (1 - kb)), (r - y) / (2 * (1 - kr))
    q = lambda v: max(0, min(255, round(v)))  # noqa: E731
    if rng == LIMITED:
        return q(16 + 219 * y), q(128 + 224 * cb), q(128 + 224 * cr)
    return q(255 * y), q(128 + 255 * cb), q(128 + 255 * cr)


def decode(codes, coefficients, rng):
    """The inverse, on the codes as quantised: what a correct converter shows, in 8-bit RGB."""
    kr, kb = WEIGHTS[coefficients]
    yc, cbc, crc = codes
    if rng == LIMITED:
        y, cb, cr = (yc - 16) / 219, (cbc - 128) / 224, (crc - 128) / 224
    else:
        y, cb, cr = yc / 255, (cbc - 128) / 255, (crc - 128) / 255
    r = y + 2 * (1 - kr) * cr
    b = y + 2 * (1 - kb) * cb
    g = (y - kr * r - kb * b) / (1 - kr - kb)
    return tuple(max(0, min(255, round(v * 255))) for v in (r, g, b))


def nv12_buffer(conn, dmabuf, coefficients, rng):
    """A linux-dmabuf NV12 wl_buffer (one memfd, chroma after luma) of the bars encoded with these values."""
    codes = [encode(level, coefficients, rng) for level in BARS]
    luma_size, chroma_size = WIDTH * HEIGHT, WIDTH * HEIGHT // 2
    fd = os.memfd_create("kiln-colour-bars", os.MFD_CLOEXEC)
    try:
        os.ftruncate(fd, luma_size + chroma_size)
        with mmap.mmap(fd, luma_size + chroma_size) as m:
            row = bytes(codes[x // BAR_W][0] for x in range(WIDTH))
            pairs = b"".join(bytes(codes[(2 * i) // BAR_W][1:]) for i in range(WIDTH // 2))
            m.write(row * HEIGHT + pairs * (HEIGHT // 2))
        params = conn.create("zwp_linux_buffer_params_v1", dmabuf, 1)
        conn.send(params, 1, ("u", 0), ("u", 0), ("u", WIDTH), ("u", 0), ("u", LINEAR), fds=[fd])
        conn.send(params, 1, ("u", 1), ("u", luma_size), ("u", WIDTH), ("u", 0), ("u", LINEAR), fds=[fd])
        buffer = conn.create("wl_buffer", params, 3, ("i", WIDTH), ("i", HEIGHT), ("u", NV12), ("u", 0))
    finally:
        os.close(fd)
    return buffer


def show(conn, surface, buffer):
    conn.send(surface, 1, ("o", buffer), ("i", 0), ("i", 0))
    conn.send(surface, 2, ("i", 0), ("i", 0), ("i", WIDTH), ("i", HEIGHT))
    conn.send(surface, 6)
    conn.roundtrip()


def find_window(kiln):
    shot = kiln.screenshot()
    for y in range(shot.height):
        for x in range(shot.width):
            if shot.at(x, y) == MARK:
                return x, y
    raise AssertionError("the window's marker colour is not on screen")


def bars_on_screen(kiln, origin):
    shot = kiln.screenshot()
    x0, y0 = origin
    return [shot.at(x0 + i * BAR_W + BAR_W // 2, y0 + HEIGHT // 2) for i in range(len(BARS))]


def captured_bars(kiln, origin):
    """The bars as ext-image-copy-capture draws the output (its own composition, not the output's frame)."""
    frame = capture_output_frame(kiln)
    x0, y0 = origin
    return [frame.at(x0 + i * BAR_W + BAR_W // 2, y0 + HEIGHT // 2) for i in range(len(BARS))]


def worst(got, want):
    return max(abs(a - b) for g, w in zip(got, want) for a, b in zip(g, w))


def wait_bars(kiln, origin, want, what):
    """Waits until every bar is within 1 of `want`; returns the largest error seen then."""
    last = []

    def close():
        last[:] = bars_on_screen(kiln, origin)
        return worst(last, want) <= 1
    try:
        kiln.wait_for(close, what, timeout=10)
    except AssertionError:
        raise AssertionError(f"{what}: got {last}, want {want}")
    return worst(last, want)


def advertised(conn):
    manager = conn.bind(MANAGER, 1)
    conn.roundtrip()
    alpha = [e.args("u")[0] for e in conn.take(manager, 0)]
    pairs = sorted(tuple(e.args("uu")) for e in conn.take(manager, 1))
    done = conn.take(manager, 2)
    return manager, alpha, pairs, len(done)


def bars():
    with Kiln() as kiln:
        with Connection(kiln.client_env) as conn:
            check(conn.globals.get(MANAGER, (0, 0))[1] == 1, f"kiln offers {MANAGER} version 1")
            manager, alpha, pairs, done = advertised(conn)
            check(sorted(alpha) == [PREMULTIPLIED_ELECTRICAL, PREMULTIPLIED_OPTICAL, STRAIGHT],
                  f"the three alpha modes are advertised ({alpha})")
            want_pairs = sorted([(IDENTITY, FULL)] + [(c, r) for c in (BT709, BT601, BT2020) for r in (FULL, LIMITED)])
            check(pairs == want_pairs and done == 1,
                  f"identity/full and BT.601/709/2020 in both ranges are advertised, then done ({pairs})")
            dmabuf = conn.bind("zwp_linux_dmabuf_v1", 3)
            window = Toplevel(conn, "colour bars")
            window.commit()
            window.map(WIDTH, HEIGHT, color=0xff000000 | MARK[0] << 16 | MARK[1] << 8 | MARK[2])
            kiln.wait_for(lambda: kiln.screenshot().count(MARK, tolerance=0) == WIDTH * HEIGHT, "the marker window")
            origin = find_window(kiln)

            # No object: kiln's default, BT.601 limited range, as before the protocol.
            codes601 = [encode(level, BT601, LIMITED) for level in BARS]
            show(conn, window.surface, nv12_buffer(conn, dmabuf, BT601, LIMITED))
            err = wait_bars(kiln, origin, [decode(c, BT601, LIMITED) for c in codes601],
                            "BT.601 limited bars without the protocol")
            check(True, f"without the protocol NV12 is read as BT.601 limited range (max error {err})")

            obj = conn.create(SURFACE, manager, 1, ("o", window.surface))
            conn.send(obj, 1, ("u", PREMULTIPLIED_ELECTRICAL))  # set_alpha_mode
            conn.send(obj, 3, ("u", TYPE_0))  # set_chroma_location: the bars' chroma is flat across each bar
            for coefficients in (BT601, BT709, BT2020):
                for rng in (LIMITED, FULL):
                    name = f"{NAMES[coefficients]} {RANGES[rng]}"
                    codes = [encode(level, coefficients, rng) for level in BARS]
                    want = [decode(c, coefficients, rng) for c in codes]
                    nominal = [tuple(round(v * 255) for v in level) for level in BARS]
                    check(worst(want, nominal) <= 2, f"{name}: the reference decodes to the published bar levels "
                          f"within 2 ({worst(want, nominal)})")
                    conn.send(obj, 2, ("u", coefficients), ("u", rng))  # set_coefficients_and_range
                    show(conn, window.surface, nv12_buffer(conn, dmabuf, coefficients, rng))
                    err = wait_bars(kiln, origin, want, f"{name} bars")
                    check(True, f"{name}: every bar within 1 of the reference (max error {err})")

            # Double-buffered: BT.709 full codes on screen; a new pair waits for the commit.
            codes709 = [encode(level, BT709, FULL) for level in BARS]
            show(conn, window.surface, nv12_buffer(conn, dmabuf, BT709, FULL))
            conn.send(obj, 2, ("u", BT709), ("u", FULL))
            conn.send(window.surface, 6)
            conn.roundtrip()
            wait_bars(kiln, origin, [decode(c, BT709, FULL) for c in codes709], "BT.709 full again")
            got = captured_bars(kiln, origin)
            check(worst(got, [decode(c, BT709, FULL) for c in codes709]) <= 1,
                  f"ext-image-copy-capture draws the bars with the surface's BT.709 full too ({got})")
            conn.send(obj, 2, ("u", BT601), ("u", LIMITED))
            conn.roundtrip()
            got = bars_on_screen(kiln, origin)
            check(worst(got, [decode(c, BT709, FULL) for c in codes709]) <= 1,
                  "a new coefficients/range pair waits for wl_surface.commit")
            conn.send(window.surface, 6)
            wait_bars(kiln, origin, [decode(c, BT601, LIMITED) for c in codes709],
                      "the same codes read as BT.601 limited after the commit (no new buffer, no damage)")
            check(True, "the commit alone changes the conversion (kiln redraws without client damage)")

            # Destroying the object: back to the default at the next commit.
            conn.send(obj, 2, ("u", BT2020), ("u", FULL))
            conn.send(window.surface, 6)
            wait_bars(kiln, origin, [decode(c, BT2020, FULL) for c in codes709], "the codes read as BT.2020 full")
            conn.send(obj, 0)
            conn.send(window.surface, 6)
            wait_bars(kiln, origin, [decode(c, BT601, LIMITED) for c in codes709],
                      "BT.601 limited after the object is destroyed")
            check(True, "destroying the object reverts to kiln's default at the next commit")
            again = conn.create(SURFACE, manager, 1, ("o", window.surface))
            conn.send(again, 2, ("u", BT709), ("u", FULL))
            conn.send(window.surface, 6)
            wait_bars(kiln, origin, [decode(c, BT709, FULL) for c in codes709], "a new object's values")
            check(True, "a surface may have a new object once the old one is gone")
        check(kiln.alive(), "kiln runs on")


def error(what, build, expected):
    expect_surface_error(what, build, expected, MANAGER)



def main():
    bars()

    def twice(conn, manager, surface):
        conn.create(SURFACE, manager, 1, ("o", surface))
        conn.create(SURFACE, manager, 1, ("o", surface))
        return manager
    error("a second object for a surface is surface_exists", twice, 1)

    def unknown_alpha(conn, manager, surface):
        obj = conn.create(SURFACE, manager, 1, ("o", surface))
        conn.send(obj, 1, ("u", STRAIGHT + 1))
        return obj
    error("alpha mode 3 (not in the enum, not advertised) is alpha_mode", unknown_alpha, 1)

    def fcc(conn, manager, surface):
        obj = conn.create(SURFACE, manager, 1, ("o", surface))
        conn.send(obj, 2, ("u", FCC), ("u", LIMITED))
        return obj
    error("FCC coefficients (not advertised) are coefficients", fcc, 2)

    def identity_limited(conn, manager, surface):
        obj = conn.create(SURFACE, manager, 1, ("o", surface))
        conn.send(obj, 2, ("u", IDENTITY), ("u", LIMITED))
        return obj
    error("identity with limited range (not advertised) is coefficients", identity_limited, 2)

    def identity_on_nv12(conn, manager, surface):
        obj = conn.create(SURFACE, manager, 1, ("o", surface))
        conn.send(obj, 2, ("u", IDENTITY), ("u", FULL))
        dmabuf = conn.bind("zwp_linux_dmabuf_v1", 3)
        conn.send(surface, 1, ("o", nv12_buffer(conn, dmabuf, BT601, LIMITED)), ("i", 0), ("i", 0))
        conn.send(surface, 6)
        return obj
    error("identity coefficients with an NV12 buffer are pixel_format at commit", identity_on_nv12, 3)

    def bt709_on_rgb(conn, manager, surface):
        obj = conn.create(SURFACE, manager, 1, ("o", surface))
        conn.send(obj, 2, ("u", BT709), ("u", LIMITED))
        conn.send(surface, 1, ("o", shm_buffer(conn, 8, 8, 0xff00ff00)), ("i", 0), ("i", 0))
        conn.send(surface, 6)
        return obj
    error("BT.709 coefficients with an XRGB8888 buffer are pixel_format at commit", bt709_on_rgb, 3)

    def kept_rgb(conn, manager, surface):
        conn.send(surface, 1, ("o", shm_buffer(conn, 8, 8, 0xff00ff00)), ("i", 0), ("i", 0))
        conn.send(surface, 6)
        obj = conn.create(SURFACE, manager, 1, ("o", surface))
        conn.send(obj, 2, ("u", BT2020), ("u", FULL))
        conn.send(surface, 6)  # no new buffer: the RGB one shown is checked
        return obj
    error("BT.2020 set over an RGB buffer already shown is pixel_format at the next commit", kept_rgb, 3)

    def chroma_on_rgb(conn, manager, surface):
        obj = conn.create(SURFACE, manager, 1, ("o", surface))
        conn.send(obj, 3, ("u", TYPE_0))
        conn.send(surface, 1, ("o", shm_buffer(conn, 8, 8, 0xff00ff00)), ("i", 0), ("i", 0))
        conn.send(surface, 6)
        return obj
    error("a chroma location with an RGB buffer is pixel_format at commit", chroma_on_rgb, 3)

    def bad_chroma(conn, manager, surface):
        obj = conn.create(SURFACE, manager, 1, ("o", surface))
        conn.send(obj, 3, ("u", 0))
        return obj
    error("chroma location 0 (not in the enum) is invalid_method", bad_chroma, 1)

    for opcode, args, name in ((1, [("u", PREMULTIPLIED_ELECTRICAL)], "set_alpha_mode"),
                               (2, [("u", BT709), ("u", FULL)], "set_coefficients_and_range"),
                               (3, [("u", TYPE_0)], "set_chroma_location")):
        def inert(conn, manager, surface, opcode=opcode, args=args):
            obj = conn.create(SURFACE, manager, 1, ("o", surface))
            conn.send(surface, 0)  # wl_surface.destroy
            conn.send(obj, opcode, *args)
            return obj
        error(f"{name} after the surface is destroyed is inert", inert, 4)


run_test(main)
