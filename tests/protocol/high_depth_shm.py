#!/usr/bin/env python3
"""High-depth wl_shm buffers: kiln advertises XRGB/ARGB/XBGR/ABGR2101010 and XBGR/ABGR16161616F, and a window drawn
in each shows, in an 8-bit screenshot, the 8-bit rounding of its 10-bit or half-float values (computed here in plain
Python) within 1 code value: a ramp with red, green and blue running differently (a channel swap or a wrong GL type
shows) and half floats outside [0, 1] clamped. Both with GL composing every frame and with --composition auto
(llvmpipe: the 10-bit windows composed on the CPU by pixman, the half-float ones handed to GL). A buffer whose stride
is shorter than a row of the format's pixels gets wl_shm.error.invalid_stride, as for 8-bit formats."""
import mmap
import os
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test, stat  # noqa: E402
from wayland_wire import Connection, Toplevel, expect_protocol_error  # noqa: E402


def fourcc(code):
    return ord(code[0]) | ord(code[1]) << 8 | ord(code[2]) << 16 | ord(code[3]) << 24


TEN_BIT = {"XRGB2101010": fourcc("XR30"), "ARGB2101010": fourcc("AR30"),
           "XBGR2101010": fourcc("XB30"), "ABGR2101010": fourcc("AB30")}
HALF = {"XBGR16161616F": fourcc("XB4H"), "ABGR16161616F": fourcc("AB4H")}
WIDTH, HEIGHT = 64, 8
MARK = (0x12, 0x34, 0x56)
INVALID_STRIDE = 1


def ten_bit_values():
    """Per pixel (r, g, b) in 0..1023: a ramp (red up by ~1/64, green down, blue at a third of red's pace)
    in the first 56 columns, then a few fixed values that fall between 8-bit codes."""
    ramp = [(x * 1023 // 55, 1023 - x * 1023 // 55, x * 341 // 55) for x in range(56)]
    fixed = [(514, 100, 900), (3, 1020, 256), (1, 2, 1022), (511, 512, 513), (0, 0, 0), (1023, 1023, 1023),
             (700, 5, 333), (250, 750, 1000)]
    return ramp + fixed


def half_values():
    """Per pixel (r, g, b) floats; those outside [0, 1] must come out clamped."""
    ramp = [(x / 55, 1 - x / 55, x / 165) for x in range(56)]
    fixed = [(0.5, 0.25, 0.125), (1.5, -0.25, 0.75), (0.1, 0.2, 0.3), (2.0, 0.0, 1.0), (0.003, 0.997, 0.5),
             (0.0, 0.0, 0.0), (1.0, 1.0, 1.0), (0.333, 0.666, 0.999)]
    return ramp + fixed


def ten_bit_bytes(name, values):
    rgb_order = name.endswith("RGB2101010")
    row = b"".join(struct.pack("<I", 3 << 30 | (r if rgb_order else b) << 20 | g << 10 | (b if rgb_order else r))
                   for r, g, b in values)
    return row, [tuple(round(v * 255 / 1023) for v in px) for px in values]


def half_bytes(values):
    row = b"".join(struct.pack("<eeee", r, g, b, 1.0) for r, g, b in values)
    # What the client's half floats hold (struct rounds to the nearest half), clamped, rounded to 8 bits.
    held = [struct.unpack("<eee", struct.pack("<eee", *px)) for px in values]
    return row, [tuple(round(min(1.0, max(0.0, v)) * 255) for v in px) for px in held]


class Pool:
    """One wl_shm_pool over a memfd the test keeps mapped."""

    def __init__(self, conn, shm, size):
        fd = os.memfd_create("kiln-high-depth", os.MFD_CLOEXEC)
        os.ftruncate(fd, size)
        self.map = mmap.mmap(fd, size)
        self.obj = conn.new_id("wl_shm_pool")
        conn.send(shm, 0, ("n", self.obj), ("i", size), fds=[fd])
        os.close(fd)


def buffer_of(conn, shm, shm_format, row, bpp):
    pool = Pool(conn, shm, WIDTH * HEIGHT * bpp)
    for y in range(HEIGHT):
        pool.map[y * WIDTH * bpp:(y + 1) * WIDTH * bpp] = row
    return conn.create("wl_buffer", pool.obj, 0, ("i", 0), ("i", WIDTH), ("i", HEIGHT), ("i", WIDTH * bpp),
                       ("u", shm_format))


def worst(got, want):
    return max(abs(a - b) for g, w in zip(got, want) for a, b in zip(g, w))


def cases(formats):
    out = []
    for name, code in formats.items():
        if name in TEN_BIT:
            row, want = ten_bit_bytes(name, ten_bit_values())
            out.append((name, code, row, want, 4))
        else:
            row, want = half_bytes(half_values())
            out.append((name, code, row, want, 8))
    return out


def in_mode(mode, formats):
    """Each of `formats` shown in turn; returns (frames rendered, frames composed on the CPU)."""
    with Kiln("--composition", mode, size="320x240") as kiln, Connection(kiln.client_env) as conn:
        shm = conn.bind("wl_shm", 1)
        conn.roundtrip()
        offered = {e.args("u")[0] for e in conn.take(shm, 0)}
        for name, code in {**TEN_BIT, **HALF}.items():
            check(code in offered, f"{mode}: wl_shm advertises {name}")
        window = Toplevel(conn, "high depth")
        window.commit()
        window.map(WIDTH, HEIGHT, color=0xff000000 | MARK[0] << 16 | MARK[1] << 8 | MARK[2])
        kiln.wait_for(lambda: kiln.screenshot().count(MARK, tolerance=0) == WIDTH * HEIGHT, "the marker window")
        shot = kiln.screenshot()
        origin = next((x, y) for y in range(shot.height) for x in range(shot.width) if shot.at(x, y) == MARK)

        def shown():
            s = kiln.screenshot()
            return [s.at(origin[0] + x, origin[1] + HEIGHT // 2) for x in range(WIDTH)]

        for name, code, row, want, bpp in cases(formats):
            conn.send(window.surface, 1, ("o", buffer_of(conn, shm, code, row, bpp)), ("i", 0), ("i", 0))
            conn.send(window.surface, 2, ("i", 0), ("i", 0), ("i", WIDTH), ("i", HEIGHT))
            window.commit()
            conn.roundtrip()
            kiln.wait_for(lambda: worst(shown(), want) <= 1, f"{mode}: {name} shown as {want}", timeout=10)
            got = shown()
            check(worst(got, want) <= 1, f"{mode}: {name}: the screenshot is the 8-bit rounding of the client's "
                  f"values within 1 (worst {worst(got, want)}; e.g. {got[56]} for {want[56]})")
        status, stats = kiln.stop()
        check(status == 0, f"{mode}: kiln exits cleanly")
        return stat(stats, "frames.rendered"), stat(stats, "frames.composed_on_cpu")


def short_stride():
    with Kiln(size="320x240") as kiln:
        for name, code, bpp in (("XRGB2101010", TEN_BIT["XRGB2101010"], 4),
                                ("ABGR16161616F", HALF["ABGR16161616F"], 8)):
            with Connection(kiln.client_env) as conn:
                shm = conn.bind("wl_shm", 1)
                pool = Pool(conn, shm, WIDTH * HEIGHT * bpp)
                # A stride of WIDTH * bpp - 4 bytes: one 32-bit word short of a row.
                conn.create("wl_buffer", pool.obj, 0, ("i", 0), ("i", WIDTH), ("i", HEIGHT),
                            ("i", WIDTH * bpp - 4), ("u", code))
                error = expect_protocol_error(conn)
                check("wl_shm_pool" in str(error) and f": {INVALID_STRIDE} " in str(error),
                      f"{name}: a stride one word short of a row is wl_shm.error.invalid_stride ({error})")


def main():
    check(in_mode("gl", {**TEN_BIT, **HALF})[1] == 0, "--composition gl composed every frame with GL")
    rendered, on_cpu = in_mode("auto", TEN_BIT)
    if on_cpu == 0:
        print("note: --composition auto drew with GL here (hardware GL): the CPU path is not covered")
        return short_stride()
    check(on_cpu == rendered, f"--composition auto: pixman composed all {rendered} frames showing 10-bit windows "
          f"({on_cpu} on the CPU)")
    rendered, on_cpu = in_mode("auto", HALF)
    check(rendered > on_cpu, f"--composition auto: frames showing half-float windows were composed by GL "
          f"({rendered - on_cpu} of {rendered})")
    short_stride()


if __name__ == "__main__":
    run_test(main)
