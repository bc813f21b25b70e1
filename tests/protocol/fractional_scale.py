#!/usr/bin/env python3
"""wp_fractional_scale_manager_v1 on a headless kiln at kiln.ini scale=1.25, 1.5, 1.75 and 2: a client is told the
scale in 120ths before its first frame, draws its 101x81 window as a 1-px checkerboard buffer of exactly
round(101 x scale) x round(81 x scale) pixels with wp_viewporter, with a 40x81 subsurface right of it continuing the
pattern, and the screenshot shows that checkerboard pixel for pixel (no blur, no seam between surface and
subsurface), at a window position whose logical x scale is not whole; a client that knows only wl_output.scale is
told 2 and its 2x buffer is drawn scaled down, each pixel within tolerance of a reference; a reload to scale 2 tells
it 240; a second object for one surface is the protocol's fractional_scale_exists error."""
import os
import signal
import struct
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from checkerboard import checkerboard, checkerboard_on_screen, shm_buffer_of  # noqa: E402
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel, expect_protocol_error  # noqa: E402

LOGICAL = (101, 81)  # centred on these outputs, at a logical position whose x and y times the scale are not whole
BESIDE = 40  # the subsurface's logical width, at x = LOGICAL[0] in the window


BLOCK = 8  # texels of the legacy client's blocks


def block_colour(bx, by):
    """The legacy client's block colours: the first green, no other near it (green stays under 200)."""
    return (0, 255, 0) if (bx, by) == (0, 0) else ((bx * 53) % 256, (by * 97) % 200, ((bx + by) * 31) % 256)


def blocks(conn, width, height):
    rows = []
    for y in range(height):
        row = bytearray()
        for x in range(width):
            r, g, b = block_colour(x // BLOCK, y // BLOCK)
            row += struct.pack("=I", 0xff000000 | r << 16 | g << 8 | b)
        rows.append(bytes(row))
    return shm_buffer_of(conn, width, height, rows)


def off_reference(shot, origin, size, buffer_size, tolerance=3):
    """The legacy client's blocks scaled from buffer_size onto size output pixels at origin, checked against a
    reference: a pixel whose bilinear footprint lies in one block is that block's colour; one on a block edge lies
    between the colours of the blocks it straddles. The pixels off by more than `tolerance`."""
    off = 0
    for py in range(size[1]):
        v = (py + 0.5) * buffer_size[1] / size[1] - 0.5
        rows = {max(0, int(v // 1)) // BLOCK, min(buffer_size[1] - 1, int(v // 1) + 1) // BLOCK}
        for px in range(size[0]):
            u = (px + 0.5) * buffer_size[0] / size[0] - 0.5
            cols = {max(0, int(u // 1)) // BLOCK, min(buffer_size[0] - 1, int(u // 1) + 1) // BLOCK}
            near = [block_colour(bx, by) for bx in cols for by in rows]
            got = shot.at(origin[0] + px, origin[1] + py)
            for c in range(3):
                low, high = min(n[c] for n in near), max(n[c] for n in near)
                if not low - tolerance <= got[c] <= high + tolerance:
                    off += 1
                    break
    return off


def preferred_scales(conn, obj):
    return [e.args("u")[0] for e in conn.take(obj, 0)]


def rounded(length, scale):
    """length x scale rounded half away from zero, as the protocol asks of a client."""
    return int(length * scale + 0.5)


def at_scale(scale_text, expected_120ths):
    scale = expected_120ths / 120
    with tempfile.TemporaryDirectory(prefix="kiln-fractional-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text(f"[output HEADLESS-1]\nscale={scale_text}\n")
        width, height = rounded(LOGICAL[0], scale), rounded(LOGICAL[1], scale)
        beside = rounded(BESIDE, scale)
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
                # A subsurface right of the window's content, drawn the same way: its pattern continues the
                # window's, so a seam or an overlap between the two breaks the checkerboard.
                sub_surface = conn.create("wl_surface", window.compositor, 0)
                subsurface = conn.create("wl_subsurface", conn.bind("wl_subcompositor", 1), 1, ("o", sub_surface),
                                         ("o", window.surface))
                conn.send(subsurface, 1, ("i", LOGICAL[0]), ("i", 0))  # set_position
                sub_viewport = conn.create("wp_viewport", viewporter, 1, ("o", sub_surface))
                conn.send(sub_viewport, 2, ("i", BESIDE), ("i", LOGICAL[1]))
                window.commit()
                window.wait_configure()
                told = preferred_scales(conn, fractional)
                check(told == [expected_120ths],
                      f"scale={scale_text}: before its first frame the client is told {expected_120ths}/120 ({told})")

                sub_buffer = checkerboard(conn, beside, height, phase=width)
                conn.send(sub_surface, 1, ("o", sub_buffer), ("i", 0), ("i", 0))
                conn.send(sub_surface, 9, ("i", 0), ("i", 0), ("i", beside), ("i", height))
                conn.send(sub_surface, 6)  # applied with the parent's next commit (synchronized)
                buffer = checkerboard(conn, width, height)
                conn.send(window.surface, 1, ("o", buffer), ("i", 0), ("i", 0))
                conn.send(window.surface, 9, ("i", 0), ("i", 0), ("i", width), ("i", height))  # damage_buffer
                window.commit()
                conn.roundtrip()

                whole = width + beside

                def drawn():
                    box, wrong = checkerboard_on_screen(kiln.screenshot(), whole, height)
                    return box and (box, wrong)

                box, wrong = kiln.wait_for(drawn, "the checkerboard on screen")
                check((box[2] - box[0], box[3] - box[1]) == (whole, height),
                      f"scale={scale_text}: the {LOGICAL[0]}x{LOGICAL[1]} window and its {BESIDE}-wide subsurface "
                      f"cover {width}+{beside}x{height} output pixels, their buffers' sizes ({box})")
                check(wrong == 0, f"scale={scale_text}: every one of their {whole * height} pixels is the buffers' "
                                  f"own, 1:1, no seam between window and subsurface ({wrong} blurred or misplaced)")
                logical = (round(box[0] / scale), round(box[1] / scale))
                if scale != int(scale):
                    check(logical[0] * scale != int(logical[0] * scale) and logical[1] * scale != int(logical[1] * scale),
                          f"scale={scale_text}: the window's logical position {logical} times the scale is not whole "
                          f"({logical[0] * scale}, {logical[1] * scale}): rounded once, to {box[:2]}")
                check(preferred_scales(conn, fractional) == [], "mapped on the output, it is told nothing new")

                # A new buffer with a 3x3 green patch at an odd place, only the patch damaged: the damage, taken to
                # surface and then output coordinates through fractional factors, still covers it whole.
                patch = (37, 41, 3, 3)
                conn.send(window.surface, 1, ("o", checkerboard(conn, width, height, patch=patch)), ("i", 0), ("i", 0))
                conn.send(window.surface, 9, *(("i", v) for v in patch))  # damage_buffer
                window.commit()
                conn.roundtrip()

                def patched():
                    shot = kiln.screenshot()
                    green = [(x, y) for y in range(box[1], box[3]) for x in range(box[0], box[0] + width)
                             if shot.at(x, y) == (0, 255, 0)]
                    return green if len(green) == 9 else None

                green = kiln.wait_for(patched, "the green patch drawn whole")
                check(min(green) == (box[0] + patch[0], box[1] + patch[1]) and max(green) == (box[0] + 39, box[1] + 43),
                      f"scale={scale_text}: a 3x3 patch damaged alone at buffer ({patch[0]}, {patch[1]}) is drawn "
                      f"whole at its 1:1 place ({min(green)}..{max(green)})")

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
                window.wait_configure()
                # 100x80 logical, drawn at 2x: 8x8-texel blocks of colours, the first green.
                conn.send(window.surface, 1, ("o", blocks(conn, 200, 160)), ("i", 0), ("i", 0))
                conn.send(window.surface, 9, ("i", 0), ("i", 0), ("i", 200), ("i", 160))
                window.commit()
                first = kiln.wait_for(lambda: kiln.screenshot().bounding_box((0, 255, 0), tolerance=4),
                                      "the legacy client's window")
                check((first[2] - first[0], first[3] - first[1]) == (6, 6),
                      f"its first 8x8 block covers 6x6 output pixels, scaled by 1.5 / 2 ({first})")
                shot = kiln.screenshot()
                off = off_reference(shot, first[:2], (150, 120), (200, 160))
                check(off == 0, f"its 200x160 buffer is scaled down onto the 150x120 output pixels from "
                                f"{first[:2]}: every pixel within 3 of a bilinear reference ({off} off)")
                past = [shot.at(first[0] + 150, first[1] + 60), shot.at(first[0] + 75, first[1] + 120)]
                check(all(p not in (block_colour(24, 7), block_colour(12, 19)) for p in past),
                      f"and nothing of it past 150x120 ({past})")

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
    at_scale("2", 240)
    legacy_and_reload()


run_test(main)
