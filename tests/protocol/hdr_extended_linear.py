#!/usr/bin/env python3
"""Extended-linear half floats above 1.0 reach an HDR output: a window whose ABGR16161616F wl_shm buffer holds patches
at 0.5, 1.0, 2.0, 4.0 and 16.0 (grey), and one coloured patch, is described with color-management-v1 as extended
linear with sRGB primaries, on an output with kiln.ini color-profile=bt2020-pq, sdr-white=100 and peak=1000. Read back
at 10 bits (an ext-image-copy-capture frame into an XRGB2101010 wl_shm buffer), each patch equals the reference
computed here (tests/lib/colour_reference.py: the value times the SDR white in cd/m², BT.709 → BT.2020, clipped at the
output's peak as doc/colour.md says kiln does above it, PQ-encoded per SMPTE ST 2084) within 1 code value at 10 bits;
2.0 and 4.0 lie well above 1.0 (not clipped at SDR white) and 16.0 sits at the peak's code. The screen (grim, 8 bits)
equals the same reference at 8 bits within 1."""
import mmap
import os
import struct
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402
from output_frame import capture_output_ten_bits  # noqa: E402
import color_management_pixels as cmp  # noqa: E402
import colour_reference as ref  # noqa: E402

ABGR16161616F = 0x48344241  # 'AB4H'
P_SRGB, TF_EXT_LINEAR = 1, 5
RELATIVE = 1
SDR_WHITE, PEAK = 100, 1000
VALUES = [(0.5, 0.5, 0.5), (1.0, 1.0, 1.0), (2.0, 2.0, 2.0), (4.0, 4.0, 4.0), (16.0, 16.0, 16.0), (3.0, 1.0, 0.25)]
PATCH = 16


def patches_buffer(conn):
    """An ABGR16161616F wl_buffer of the patches side by side, PATCH x PATCH each, opaque; its width and its memory."""
    width = PATCH * len(VALUES)
    size = width * PATCH * 8
    fd = os.memfd_create("kiln-ext-linear", os.MFD_CLOEXEC)
    os.ftruncate(fd, size)
    memory = mmap.mmap(fd, size)
    row = b"".join(struct.pack("<eeee", *VALUES[x // PATCH], 1.0) for x in range(width))
    for y in range(PATCH):
        memory[y * width * 8:(y + 1) * width * 8] = row
    shm = conn.bind("wl_shm", 1)
    pool = conn.new_id("wl_shm_pool")  # ids are taken in the order they are sent
    conn.send(shm, 0, ("n", pool), ("i", size), fds=[fd])
    os.close(fd)
    buffer = conn.create("wl_buffer", pool, 0, ("i", 0), ("i", width), ("i", PATCH), ("i", width * 8),
                         ("u", ABGR16161616F))
    return buffer, width, memory


def worst(got, want):
    return max(abs(a - b) for g, w in zip(got, want) for a, b in zip(g, w))


def main():
    need("grim")
    want10 = ref.linear_on_pq(VALUES, "srgb", SDR_WHITE, PEAK, bits=10)
    want8 = ref.linear_on_pq(VALUES, "srgb", SDR_WHITE, PEAK, bits=8)
    # What the reference itself says: white's 100 cd/m² is PQ 0.508 (ST 2084 table), 2.0 and 4.0 well above it,
    # 16.0 (1,600 cd/m²) at the 1,000 cd/m² peak.
    check(abs(want10[1][0] - 0.5081 * 1023) < 1, f"the reference puts 1.0 at 100 cd/m², PQ 0.508 ({want10[1]})")
    check(want10[4][0] == round(ref.pq_encode(PEAK) * 1023), f"and 16.0 at the peak's code ({want10[4]})")
    with tempfile.TemporaryDirectory(prefix="kiln-ext-linear-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text(f"[output HEADLESS-1]\ncolor-profile=bt2020-pq\nsdr-white={SDR_WHITE}\npeak={PEAK}\n")
        with Kiln("--config", str(config), size="320x240") as kiln, Connection(kiln.client_env) as conn:
            manager = conn.bind("wp_color_manager_v1", 1)
            window = Toplevel(conn, "extended linear")
            window.commit()
            window.wait_configure()
            surface_colour = conn.create("wp_color_management_surface_v1", manager, 2, ("o", window.surface))
            description = cmp.described(conn, manager, P_SRGB, TF_EXT_LINEAR)
            conn.send(surface_colour, 1, ("o", description), ("u", RELATIVE))  # set_image_description
            buffer, width, _memory = patches_buffer(conn)
            conn.send(window.surface, 1, ("o", buffer), ("i", 0), ("i", 0))
            conn.send(window.surface, 2, ("i", 0), ("i", 0), ("i", width), ("i", PATCH))
            window.commit()
            conn.roundtrip()

            def found():
                frame = capture_output_ten_bits(kiln)
                first = next((i for i, w in enumerate(frame.words) if w & 0x3fffffff), None)
                if first is None:
                    return None
                x0, y0 = first % frame.width, first // frame.width
                got = [frame.at(x0 + i * PATCH + PATCH // 2, y0 + PATCH // 2) for i in range(len(VALUES))]
                return (x0, y0), got

            last = [None]

            def settled():
                last[0] = found()
                return last[0] is not None and worst(last[0][1], want10) <= 1
            try:
                kiln.wait_for(settled, f"the patches at 10 bits to be {want10}", timeout=10)
            except AssertionError:
                pass  # the check below says what was there
            check(last[0] is not None, "the window in the 10-bit capture")
            (x0, y0), got = last[0]
            check(worst(got, want10) <= 1, f"10-bit capture: patches {got} equal the reference {want10} within 1 "
                  f"(values {[v[0] for v in VALUES[:5]]} grey, then {VALUES[5]})")
            check(got[2][0] - got[1][0] >= 50 and got[3][0] - got[2][0] >= 50,
                  f"2.0 and 4.0 are not clipped at 1.0: {got[1][0]} < {got[2][0]} < {got[3][0]}")
            shot = kiln.screenshot()
            on_screen = [shot.at(x0 + i * PATCH + PATCH // 2, y0 + PATCH // 2) for i in range(len(VALUES))]
            check(worst(on_screen, want8) <= 1, f"on screen (8 bits) {on_screen}, reference {want8}")


if __name__ == "__main__":
    run_test(main)
