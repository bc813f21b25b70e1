#!/usr/bin/env python3
"""Which composition path colour takes under --composition auto (kiln's CPU composition where GL is software): a
window of six patches, undescribed and then described as plain sRGB (color-management-v1 parametric, sRGB primaries
and curve), on an sRGB output is composed on the CPU in every frame (--stats: frames.composed_on_cpu equals
frames.rendered, renderer.linear_light_frames 0) and shows its bytes exactly; the same patches described as Display
P3 on the sRGB output, or undescribed on a color-profile=p3 output, are composed by GL in linear light (frames
rendered by GL, linear-light frames counted) and equal the references computed outside kiln
(tests/protocol/color_management_pixels.py, tests/protocol/output_colour.py) within 1 code value, where pixman
would show the bytes unconverted. Skipped where GL is hardware (auto then never composes on the CPU)."""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kiln_harness import Kiln, check, need, run_test, skip  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402
import color_management_pixels as cmp  # noqa: E402
import output_colour  # noqa: E402

P_SRGB, P_DISPLAY_P3 = 1, 9
TF_SRGB = 9
RELATIVE = 1


def counters(stats):
    """(frames rendered, of them composed on the CPU, linear-light frames); the renderer's keys are absent where
    GL never started."""
    frames = stats.get("frames", {})
    renderer = stats.get("renderer", {})
    return frames.get("rendered", 0), frames.get("composed_on_cpu", 0), renderer.get("linear_light_frames", 0)


def shown(config, named, want, what):
    """A kiln (--composition auto) showing the patches with description `named` (None: undescribed); checks the
    screen against `want` within 1; returns what is shown and the counters."""
    with Kiln("--composition", "auto", "--config", str(config), size="320x240") as kiln, \
            Connection(kiln.client_env) as conn:
        manager = conn.bind("wp_color_manager_v1", 1)
        window = Toplevel(conn, "colour path")
        window.commit()
        window.wait_configure()
        if named:
            surface_colour = conn.create("wp_color_management_surface_v1", manager, 2, ("o", window.surface))
            description = cmp.described(conn, manager, *named)
            conn.send(surface_colour, 1, ("o", description), ("u", RELATIVE))  # set_image_description
        buffer = cmp.patches_buffer(conn)
        conn.send(window.surface, 1, ("o", buffer.obj), ("i", 0), ("i", 0))
        conn.send(window.surface, 2, ("i", 0), ("i", 0), ("i", cmp.WIDTH), ("i", cmp.HEIGHT))
        window.commit()
        conn.roundtrip()
        origin = output_colour.find_origin(kiln, want[0])
        kiln.wait_for(lambda: cmp.worst(cmp.on_screen(kiln, origin), want) <= 1, f"{what}: the patches {want}",
                      timeout=10)
        got = cmp.on_screen(kiln, origin)
        status, stats = kiln.stop()
        check(status == 0, f"{what}: kiln exits cleanly")
        return got, counters(stats)


def main():
    need("grim")
    with tempfile.TemporaryDirectory(prefix="kiln-colour-cpu-") as tmp:
        srgb = Path(tmp) / "srgb.ini"
        srgb.write_text("[output HEADLESS-1]\ncolor-profile=srgb\n")
        p3 = Path(tmp) / "p3.ini"
        p3.write_text("[output HEADLESS-1]\ncolor-profile=p3\n")

        got, (rendered, on_cpu, linear) = shown(srgb, None, cmp.PATCHES, "undescribed on sRGB")
        if on_cpu == 0:
            skip("--composition auto composed nothing on the CPU here (hardware GL): the CPU path is not there")
        check(on_cpu == rendered and linear == 0, f"undescribed sRGB on the sRGB output: all {rendered} frames "
              f"composed on the CPU ({on_cpu}), no linear-light frame ({linear})")
        check(cmp.worst(got, cmp.PATCHES) == 0, f"and its patches are their bytes exactly ({got})")

        got, (rendered, on_cpu, linear) = shown(srgb, (P_SRGB, TF_SRGB), cmp.PATCHES, "described as sRGB")
        check(on_cpu == rendered and linear == 0, f"described as plain sRGB: all {rendered} frames composed on the "
              f"CPU ({on_cpu}), no linear-light frame ({linear})")
        check(cmp.worst(got, cmp.PATCHES) == 0, f"and its patches are their bytes exactly ({got})")

        for what, config, named, want in (
                ("Display P3 on the sRGB output", srgb, (P_DISPLAY_P3, TF_SRGB),
                 cmp.reference("display-p3", cmp.srgb_decode)),
                ("undescribed on the Display P3 output", p3, None, output_colour.srgb_on_p3())):
            check(want != cmp.PATCHES, f"{what}: the reference differs from the bytes ({want})")
            got, (rendered, on_cpu, linear) = shown(config, named, want, what)
            check(rendered > on_cpu and linear > 0, f"{what}: frames composed by GL ({rendered - on_cpu} of "
                  f"{rendered}), in linear light ({linear})")
            check(cmp.worst(got, want) <= 1, f"{what}: the patches {got} equal the reference {want} within 1")


if __name__ == "__main__":
    run_test(main)
