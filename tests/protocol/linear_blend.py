#!/usr/bin/env python3
"""Composition in linear light, on screen: a window of 60% green (premultiplied ARGB8888) with a 50% red subsurface
half over it, on a black background. With color-profile=p3 the three regions (green alone, red over green, red
alone) on screen (grim) and in an ext-image-copy-capture frame equal a blend computed here in plain Python in linear
light (sRGB curve decoded, sRGB → Display P3 matrix from the primaries, clipped, blended premultiplied, encoded),
within 1 code value, and red over green differs from the gamma-space blend as the reference says; --stats counts
linear-light frames. The same on a color-profile=bt2020-hlg output (the blend in BT.2020 linear light, SDR white at
203 of 1,000 cd/m², encoded with BT.2100's inverse OOTF and HLG OETF written out here) and on a color-profile=icc:PATH
output (a v4 matrix/shaper profile: each layer taken to XYZ and the blend back to the device by lcms2 through ctypes,
so the reference is lcms2's, not kiln's). On the default sRGB output (composed with GL) the same windows blend as
before, in the encoding, and --stats shows no linear-light frame and no FP16 intermediate: an all-sRGB desktop pays
nothing."""
import math
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kiln_harness import Kiln, check, need, run_test, stat  # noqa: E402
from wayland_wire import ARGB8888, Connection, Toplevel, shm_buffer  # noqa: E402
from output_frame import capture_output_frame  # noqa: E402
import color_management_pixels as cmp  # noqa: E402  (primaries, matrices and the sRGB curve)
import lcms2_transform  # noqa: E402
import output_colour  # noqa: E402  (the HLG OETF, BT.2020's primaries, the wide 1.8 profile's parts)
import icc_profiles  # noqa: E402

GREEN = (0, 153, 0, 153)  # premultiplied R, G, B, A: 60% green
RED = (128, 0, 0, 128)    # 50% red
W, H, SUB_X, SUB_W = 200, 100, 150, 100
# Sample points from the window's top left: green alone, red over green, red over the background alone.
POINTS = {"green alone": (75, 50), "red over green": (175, 50), "red alone": (225, 50)}
LAYERS = {"green alone": [GREEN], "red over green": [GREEN, RED], "red alone": [RED]}


def layer(premultiplied, light):
    """A layer's colour (un-premultiplied, 0..1) in the linear light `light` gives, and its alpha."""
    a = premultiplied[3] / 255
    return light([c / 255 / a for c in premultiplied[:3]]), a


def blend(layers, light, encode, linear):
    """Premultiplied "over" onto black, in linear light (linear=True) or on encoded values; 8-bit code values.
    `light`: a colour's linear light, clipped to the output's range; `encode`: linear light to the output's 0..1."""
    acc = [0.0, 0.0, 0.0]
    for premultiplied in layers:
        colour, a = layer(premultiplied, light)
        if not linear:
            colour = encode(colour)
        acc = [c * a + v * (1 - a) for c, v in zip(colour, acc)]
    if linear:
        acc = encode(acc)
    return tuple(v * 255 for v in acc)


def matrix_light(matrix, top=1.0):
    """sRGB decoded (IEC 61966-2-1), into the output's primaries, clipped to 0..top."""
    def light(colour):
        linear = [cmp.srgb_decode(c) for c in colour]
        return [min(top, max(0.0, sum(matrix[r][k] * linear[k] for k in range(3)))) for r in range(3)]
    return light


def srgb_encode(rgb):
    return [cmp.srgb_encode(v) for v in rgb]


def hlg_encode(white, peak):
    """ITU-R BT.2100: linear light relative to SDR white → display light relative to the nominal peak, clipped;
    the inverse OOTF (Y_d from BT.2020's weights, gamma 1.2 + 0.42 log10(peak / 1000)); the HLG OETF."""
    gamma = 1.2 + 0.42 * math.log10(peak / 1000)

    def encode(rgb):
        display = [min(1.0, max(0.0, v * white / peak)) for v in rgb]
        yd = 0.2627 * display[0] + 0.6780 * display[1] + 0.0593 * display[2]
        return [output_colour.hlg_oetf(v * yd ** ((1 - gamma) / gamma) if yd > 0 else 0.0) for v in display]
    return encode


def icc_light_and_encode(profile):
    """Through lcms2 alone: a colour's light is its XYZ (the PCS; a matrix/shaper profile's linear light is a matrix
    away from it, so blends agree), and XYZ goes back to the device through the profile, clipped to 0..1."""
    def light(colour):
        return list(lcms2_transform.srgb_to_xyz([colour])[0])

    def encode(xyz):
        return [min(1.0, max(0.0, v)) for v in lcms2_transform.xyz_to_profile(profile, [xyz])[0]]
    return light, encode


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


def run(config, name, light, encode, linear, tmp):
    args = ["--background", "0x000000", "--composition", "gl"]
    if config:
        path = Path(tmp) / "kiln.ini"
        path.write_text(config)
        args += ["--config", str(path)]
    want = {k: blend(v, light, encode, linear) for k, v in LAYERS.items()}
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


def linear_output(name, config, light, encode, tmp):
    """The windows on an output composed in linear light: the reference's blend on screen, away from the
    gamma-space blend by the amount the reference predicts, and frames counted as linear-light ones."""
    # The reference must tell the two blends apart, by the amount checked below.
    linear_ref = blend(LAYERS["red over green"], light, encode, True)
    gamma_ref = blend(LAYERS["red over green"], light, encode, False)
    check(max(abs(a - b) for a, b in zip(linear_ref, gamma_ref)) >= 10,
          f"{name}: linear ({linear_ref}) and gamma-space ({gamma_ref}) blends differ by 10 code values or more")
    got, stats = run(config, name, light, encode, True, tmp)
    over = got["red over green"]
    for c in range(3):
        predicted = linear_ref[c] - gamma_ref[c]
        if abs(predicted) >= 3:
            check((over[c] - gamma_ref[c]) * predicted > 0 and abs(over[c] - gamma_ref[c] - predicted) <= 1.5,
                  f"{name}, channel {c}: {over[c]} lies {over[c] - gamma_ref[c]:+.1f} from the gamma-space blend "
                  f"{gamma_ref[c]:.1f}, as the linear-light reference says ({predicted:+.1f})")
    check(stat(stats, "renderer.linear_light_frames") > 0 and stat(stats, "renderer.linear_light_targets") >= 1,
          f"{name}: frames composed in linear light ({stat(stats, 'renderer.linear_light_frames')}, "
          f"{stat(stats, 'renderer.linear_light_targets')} intermediates)")


def main():
    need("grim")
    srgb = cmp.to_xyz(cmp.PRIMARIES["srgb"])
    identity = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    with tempfile.TemporaryDirectory(prefix="kiln-linear-blend-") as tmp:
        srgb_to_p3 = cmp.product(cmp.inverse(cmp.to_xyz(cmp.PRIMARIES["display-p3"])), srgb)
        linear_output("P3 output", "[output HEADLESS-1]\ncolor-profile=p3\n", matrix_light(srgb_to_p3),
                      srgb_encode, tmp)

        # BT.2020 HLG, SDR white 203 of a 1,000 cd/m² peak (kiln.ini's defaults): light up to peak / white.
        srgb_to_bt2020 = cmp.product(cmp.inverse(cmp.to_xyz(output_colour.BT2020)), srgb)
        linear_output("HLG output", "[output HEADLESS-1]\ncolor-profile=bt2020-hlg\n",
                      matrix_light(srgb_to_bt2020, 1000 / 203), hlg_encode(203, 1000), tmp)

        profile = icc_profiles.profile(primaries=output_colour.WIDE, version=4,
                                       tags={b"rTRC": output_colour.GAMMA_18, b"gTRC": output_colour.GAMMA_18,
                                             b"bTRC": output_colour.GAMMA_18})
        path = Path(tmp) / "wide-gamma-1.8.icc"
        path.write_bytes(profile)
        # The layers' colours lie inside the profile's gamut, so no clip happens before the blend (which lcms2's
        # XYZ would not show).
        inside = lcms2_transform.srgb_to_profile_values(profile, [(1, 0, 0), (0, 1, 0)])
        check(all(-1e-6 <= v <= 1 + 1e-6 for colour in inside for v in colour),
              f"red and green lie inside the ICC output's gamut ({inside})")
        light, encode = icc_light_and_encode(profile)
        linear_output("ICC output", f"[output HEADLESS-1]\ncolor-profile=icc:{path}\n", light, encode, tmp)

        _, stats = run(None, "sRGB output", matrix_light(identity), srgb_encode, False, tmp)
        check(stat(stats, "frames.rendered") > 0 and stat(stats, "renderer.linear_light_frames") == 0 and
              stat(stats, "renderer.linear_light_targets") == 0,
              f"sRGB output, sRGB windows: {stat(stats, 'frames.rendered')} frames drawn with GL, none in linear "
              "light, no FP16 intermediate")


if __name__ == "__main__":
    run_test(main)
