#!/usr/bin/env python3
"""wp_fractional_scale_manager_v1 on a headless kiln at kiln.ini scale=1.5 (and 1.25, 1.75): a client is told the
scale in 120ths before its first frame, draws its 100x80 window as a 1-px checkerboard buffer of exactly
round(100 x scale) x round(80 x scale) pixels with wp_viewporter, and the screenshot shows that checkerboard pixel
for pixel (no blur, no seam); a client that knows only wl_output.scale is told 2 and drawn scaled down; a reload
to scale 2 tells it 240; a second object for one surface is the protocol's fractional_scale_exists error."""
import mmap
import os
import signal
import struct
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel, expect_protocol_error  # noqa: E402

A = 0xffff0000  # red
B = 0xff0000ff  # blue
LOGICAL = (100, 80)


def checkerboard(conn, width, height):
    """A wl_buffer whose pixel (x, y) is A where x + y is even, else B."""
    shm = conn.bind("wl_shm", 1)
    size = width * height * 4
    fd = os.memfd_create("kiln-fractional-test", os.MFD_CLOEXEC)
    try:
        os.ftruncate(fd, size)
        with mmap.mmap(fd, size) as pixels:
            even, odd = struct.pack("=II", A, B), struct.pack("=II", B, A)
            for y in range(height):
                pixels.write(((even if y % 2 == 0 else odd) * (width // 2 + 1))[:width * 4])
        pool = conn.new_id("wl_shm_pool")
        conn.send(shm, 0, ("n", pool), ("i", size), fds=[fd])
    finally:
        os.close(fd)
    return conn.create("wl_buffer", pool, 0, ("i", 0), ("i", width), ("i", height), ("i", width * 4), ("u", 1))


def preferred_scales(conn, obj):
    return [e.args("u")[0] for e in conn.take(obj, 0)]


RED, BLUE = b"\xff\x00\x00", b"\x00\x00\xff"


def checkerboard_on_screen(shot, width, height):
    """Where the checkerboard's top-left pixel is, and how many of its pixels differ from the buffer's, exactly."""
    first = shot.pixels.find(RED)  # the first red pixel in raster order is the pattern's top-left one
    while first >= 0 and first % 3:
        first = shot.pixels.find(RED, first + 1)
    if first < 0:
        return None, None
    x0, y0 = (first // 3) % shot.width, (first // 3) // shot.width
    wrong = 0
    for y in range(height):
        want = ((RED + BLUE) if y % 2 == 0 else (BLUE + RED)) * (width // 2 + 1)
        row = (y0 + y) * shot.width + x0
        got = shot.pixels[row * 3:(row + min(width, shot.width - x0)) * 3] if y0 + y < shot.height else b""
        wrong += sum(1 for i in range(width) if got[i * 3:i * 3 + 3] != want[i * 3:i * 3 + 3])
    # Nothing of the pattern outside: the pixels right of and below it are not red or blue.
    right = shot.at(x0 + width, y0 + 1) if x0 + width < shot.width else (0, 0, 0)
    below = shot.at(x0 + 1, y0 + height) if y0 + height < shot.height else (0, 0, 0)
    spill = bytes(right) in (RED, BLUE) or bytes(below) in (RED, BLUE)
    return (x0, y0, x0 + width + spill, y0 + height + spill), wrong


def at_scale(scale_text, expected_120ths):
    with tempfile.TemporaryDirectory(prefix="kiln-fractional-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text(f"[output HEADLESS-1]\nscale={scale_text}\n")
        width, height = (round(LOGICAL[0] * expected_120ths / 120), round(LOGICAL[1] * expected_120ths / 120))
        with Kiln("--config", str(config), size="960x720") as kiln:
            with Connection(kiln.client_env) as conn:
                check("wp_fractional_scale_manager_v1" in conn.globals,
                      "kiln offers wp_fractional_scale_manager_v1")
                manager = conn.bind("wp_fractional_scale_manager_v1", 1)
                viewporter = conn.bind("wp_viewporter", 1)
                window = Toplevel(conn, "fractional")
                fractional = conn.create("wp_fractional_scale_v1", manager, 1, ("o", window.surface))
                viewport = conn.create("wp_viewport", viewporter, 1, ("o", window.surface))
                conn.send(viewport, 2, ("i", LOGICAL[0]), ("i", LOGICAL[1]))  # set_destination
                window.commit()
                window.wait_configure()
                told = preferred_scales(conn, fractional)
                check(told == [expected_120ths],
                      f"scale={scale_text}: before its first frame the client is told {expected_120ths}/120 ({told})")

                buffer = checkerboard(conn, width, height)
                conn.send(window.surface, 1, ("o", buffer), ("i", 0), ("i", 0))
                conn.send(window.surface, 9, ("i", 0), ("i", 0), ("i", width), ("i", height))  # damage_buffer
                window.commit()
                conn.roundtrip()

                def drawn():
                    box, wrong = checkerboard_on_screen(kiln.screenshot(), width, height)
                    return box and (box, wrong)

                box, wrong = kiln.wait_for(drawn, "the checkerboard on screen")
                check((box[2] - box[0], box[3] - box[1]) == (width, height),
                      f"scale={scale_text}: the {LOGICAL[0]}x{LOGICAL[1]} window covers {width}x{height} output "
                      f"pixels, the buffer's size ({box})")
                check(wrong == 0, f"scale={scale_text}: every one of its {width * height} pixels is the buffer's own, "
                                  f"1:1 ({wrong} blurred or misplaced)")
                check(preferred_scales(conn, fractional) == [], "mapped on the output, it is told nothing new")

                # A second object for the same surface is the manager's fractional_scale_exists error.
                conn.create("wp_fractional_scale_v1", manager, 1, ("o", window.surface))
                error = expect_protocol_error(conn)
                check("wp_fractional_scale_manager_v1" in str(error) and ": 0 " in str(error),
                      f"a second wp_fractional_scale_v1 for one surface: fractional_scale_exists ({error})")
            check(kiln.alive(), "kiln is alive after the client's error")


def legacy_and_reload():
    """An integer-scale client at 1.5 is told wl_output.scale 2 and drawn scaled to 150x120; a reload to scale 2
    tells the fractional client 240; a surface gone before its object leaves that object inert."""
    with tempfile.TemporaryDirectory(prefix="kiln-fractional-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text("[output HEADLESS-1]\nscale=1.5\n")
        with Kiln("--config", str(config), size="960x720") as kiln:
            with Connection(kiln.client_env) as conn:
                output = conn.bind("wl_output", 2)
                conn.roundtrip()
                scales = [e.args("i")[0] for e in conn.take(output, 3)]
                check(scales == [2], f"at 1.5 a client of wl_output alone is told scale 2, as on sway ({scales})")

                window = Toplevel(conn, "legacy")
                conn.send(window.surface, 8, ("i", 2))  # set_buffer_scale 2
                window.commit()
                window.map(200, 160, 0xff00ff00)  # 100x80 logical, drawn at 2x
                box = kiln.wait_for(lambda: kiln.screenshot().bounding_box((0, 255, 0), tolerance=4),
                                    "the legacy client's window")
                check((box[2] - box[0], box[3] - box[1]) == (150, 120),
                      f"its 200x160 buffer is scaled down onto 150x120 output pixels ({box})")

                manager = conn.bind("wp_fractional_scale_manager_v1", 1)
                fractional = conn.create("wp_fractional_scale_v1", manager, 1, ("o", window.surface))
                conn.roundtrip()
                check(preferred_scales(conn, fractional) == [180], "it is told 180 when it asks")
                config.write_text("[output HEADLESS-1]\nscale=2\n")
                os.kill(kiln.proc.pid, signal.SIGHUP)
                event = conn.dispatch_until(lambda e: e.obj == fractional and e.opcode == 0, timeout=10)
                check(event.args("u")[0] == 240, f"a reload to scale=2 tells it 240 ({event.args('u')[0]})")

                conn.send(window.toplevel, 0)  # xdg_toplevel.destroy
                conn.send(window.xdg_surface, 0)  # xdg_surface.destroy
                conn.send(window.surface, 0)  # wl_surface.destroy: the fractional object is now inert
                conn.send(fractional, 0)
                conn.roundtrip()
            check(kiln.alive(), "kiln is alive after the surface went before its fractional-scale object")


def main():
    need("grim")
    at_scale("1.5", 180)
    at_scale("1.25", 150)
    at_scale("1.75", 210)
    legacy_and_reload()


run_test(main)
