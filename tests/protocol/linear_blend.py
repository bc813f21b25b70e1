#!/usr/bin/env python3
"""Composition in linear light, on screen: a window of 60% green (premultiplied ARGB8888) with a 50% red subsurface
half over it, on a black background. With color-profile=p3 the three regions (green alone, red over green, red
alone) on screen (grim) and in an ext-image-copy-capture frame equal a blend computed here in plain Python in linear
light (sRGB curve decoded, sRGB → Display P3 matrix from the primaries, clipped, blended premultiplied, encoded),
within 1 code value, and red over green differs from the gamma-space blend as the reference says; --stats counts
linear-light frames. On the default sRGB output (composed with GL) the same windows blend as before, in the
encoding, and --stats shows no linear-light frame and no FP16 intermediate: an all-sRGB desktop pays nothing."""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kiln_harness import Kiln, check, need, run_test, stat  # noqa: E402
from wayland_wire import ARGB8888, Connection, Toplevel, shm_buffer  # noqa: E402
from output_frame import capture_output_frame  # noqa: E402
import color_management_pixels as cmp  # noqa: E402  (primaries, matrices and the sRGB curve)

GREEN = (0, 153, 0, 153)  # premultiplied R, G, B, A: 60% green
RED = (128, 0, 0, 128)    # 50% red
W, H, SUB_X, SUB_W = 200, 100, 150, 100
# Sample points from the window's top left: green alone, red over green, red over the background alone.
POINTS = {"green alone": (75, 50), "red over green": (175, 50), "red alone": (225, 50)}
LAYERS = {"green alone": [GREEN], "red over green": [GREEN, RED], "red alone": [RED]}


def layer(premultiplied, matrix):
    """A layer's linear light in the output's primaries, clipped to 0..1, and its alpha."""
    a = premultiplied[3] / 255
    linear = [cmp.srgb_decode(c / 255 / a) for c in premultiplied[:3]]
    return [min(1.0, max(0.0, sum(matrix[r][k] * linear[k] for k in range(3)))) for r in range(3)], a


def blend(layers, matrix, linear):
    """Premultiplied "over" onto black, in linear light (linear=True) or on encoded values; 8-bit code values."""
    acc = [0.0, 0.0, 0.0]
    for premultiplied in layers:
        colour, a = layer(premultiplied, matrix)
        if not linear:
            colour = [cmp.srgb_encode(c) for c in colour]
        acc = [c * a + v * (1 - a) for c, v in zip(colour, acc)]
    if linear:
        acc = [cmp.srgb_encode(v) for v in acc]
    return tuple(v * 255 for v in acc)


def show_windows(conn):
    window = Toplevel(conn, "linear blend")
    window.commit()
    colour = GREEN[3] << 24 | GREEN[0] << 16 | GREEN[1] << 8 | GREEN[2]
    window.wait_configure()
    conn.send(window.surface, 1, ("o", shm_buffer(conn, W, H, colour, ARGB8888)), ("i", 0), ("i", 0))
    conn.send(window.surface, 2, ("i", 0), ("i", 0), ("i", W), ("i", H))
    subcompositor = conn.bind("wl_subcompositor", 1)
    child = conn.create("wl_surface", window.compositor, 0)
    sub = conn.create("wl_subsurface", subcompositor, 1, ("o", child), ("o", window.surface))
    conn.send(sub, 1, ("i", SUB_X), ("i", 0))  # set_position
    red = RED[3] << 24 | RED[0] << 16 | RED[1] << 8 | RED[2]
    conn.send(child, 1, ("o", shm_buffer(conn, SUB_W, H, red, ARGB8888)), ("i", 0), ("i", 0))
    conn.send(child, 2, ("i", 0), ("i", 0), ("i", SUB_W), ("i", H))
    conn.send(child, 6)  # synchronised: applied with the parent's commit
    window.commit()
    conn.roundtrip()


def samples(shot, origin):
    x0, y0 = origin
    return {name: shot.at(x0 + x, y0 + y) for name, (x, y) in POINTS.items()}


def origin_of(kiln):
    """The window's top left: the first pixel that is not the black background."""
    def search():
        shot = kiln.screenshot()
        return next(((x, y) for y in range(shot.height) for x in range(shot.width) if shot.at(x, y) != (0, 0, 0)),
                    None)
    kiln.wait_for(lambda: search() is not None, "the translucent window on screen", timeout=10)
    return search()


def near(got, want):
    return max(abs(g - w) for g, w in zip(got, want)) <= 1


def run(config, linear, matrix, tmp):
    args = ["--background", "0x000000", "--composition", "gl"]
    if config:
        path = Path(tmp) / "kiln.ini"
        path.write_text(config)
        args += ["--config", str(path)]
    name = "P3 output" if linear else "sRGB output"
    want = {k: blend(v, matrix, linear) for k, v in LAYERS.items()}
    with Kiln(*args, size="320x240") as kiln, Connection(kiln.client_env) as conn:
        show_windows(conn)
        origin = origin_of(kiln)
        kiln.wait_for(lambda: all(near(samples(kiln.screenshot(), origin)[k], want[k]) for k in POINTS),
                      f"{name}: the blends on screen to be {want}", timeout=10)
        got = samples(kiln.screenshot(), origin)
        for k in POINTS:
            check(near(got[k], want[k]), f"{name}, {k}: on screen {got[k]}, reference {tuple(round(v, 2) for v in want[k])}")
        captured = samples(capture_output_frame(kiln), origin)
        for k in POINTS:
            check(near(captured[k], want[k]), f"{name}, {k}: in an ext-image-copy-capture frame {captured[k]}")
        status, stats = kiln.stop()
    check(status == 0, f"{name}: kiln exits 0")
    return got, stats


def main():
    need("grim")
    srgb_to_p3 = cmp.product(cmp.inverse(cmp.to_xyz(cmp.PRIMARIES["display-p3"])), cmp.to_xyz(cmp.PRIMARIES["srgb"]))
    identity = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    # The reference must tell the two blends apart, by the amount checked below.
    linear_ref = blend(LAYERS["red over green"], srgb_to_p3, True)
    gamma_ref = blend(LAYERS["red over green"], srgb_to_p3, False)
    check(max(abs(a - b) for a, b in zip(linear_ref, gamma_ref)) >= 10,
          f"linear ({linear_ref}) and gamma-space ({gamma_ref}) blends differ by 10 code values or more")
    with tempfile.TemporaryDirectory(prefix="kiln-linear-blend-") as tmp:
        got, stats = run("[output HEADLESS-1]\ncolor-profile=p3\n", True, srgb_to_p3, tmp)
        over = got["red over green"]
        for c in range(3):
            predicted = linear_ref[c] - gamma_ref[c]
            if abs(predicted) >= 3:
                check((over[c] - gamma_ref[c]) * predicted > 0 and abs(over[c] - gamma_ref[c] - predicted) <= 1.5,
                      f"channel {c}: {over[c]} lies {over[c] - gamma_ref[c]:+.1f} from the gamma-space blend "
                      f"{gamma_ref[c]:.1f}, as the linear-light reference says ({predicted:+.1f})")
        check(stat(stats, "renderer.linear_light_frames") > 0 and stat(stats, "renderer.linear_light_targets") >= 1,
              f"P3 output: frames composed in linear light ({stat(stats, 'renderer.linear_light_frames')}, "
              f"{stat(stats, 'renderer.linear_light_targets')} intermediates)")

        _, stats = run(None, False, identity, tmp)
        check(stat(stats, "frames.rendered") > 0 and stat(stats, "renderer.linear_light_frames") == 0 and
              stat(stats, "renderer.linear_light_targets") == 0,
              f"sRGB output, sRGB windows: {stat(stats, 'frames.rendered')} frames drawn with GL, none in linear "
              "light, no FP16 intermediate")


if __name__ == "__main__":
    run_test(main)
