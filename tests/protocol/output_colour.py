#!/usr/bin/env python3
"""kiln.ini's [output NAME] color-profile=: with color-profile=p3 on HEADLESS-1 a plain sRGB window's patches show on
screen (grim) and in an ext-image-copy-capture frame as their Display P3 values, computed here in plain Python (decode
the sRGB curve, RGB → XYZ with sRGB's primaries, XYZ → RGB with Display P3's, clip, encode the sRGB curve), within 1
code value; color-management-v1 tells the output's description (Display P3 primaries, named display_p3, sRGB curve),
and a surface's preferred one is that record. A reload to color-profile=srgb sends image_description_changed and
preferred_changed and shows the bytes as they are; a kiln.ini whose value is unknown warns
"kiln: FILE:LINE: reason" and keeps the output sRGB.

color-profile=bt2020-hlg: the patches equal BT.2100's HLG signal computed here (sRGB decoded, BT.709 → BT.2020,
SDR white at 203 of the 1,000 cd/m² nominal peak, inverse OOTF with system gamma 1.2, the HLG OETF), white at
BT.2408's 75 % HLG. color-profile=icc:PATH with a v4 matrix/shaper profile (odd primaries, a pure 1.8 curve; written by
tests/lib/icc_profiles.py): the patches equal lcms2's own sRGB → profile transform (relative colorimetric, called
through ctypes) within 1 code value, on screen and captured, and get_information gives the profile back as icc_file.
color-profile=icc:PATH with a version 2 LUT-based profile (A2B0 and B2A0 lut16Type pipelines made by lcms2 through
ctypes, tests/lib/lcms2_lut_profile.py; its tag table holds no rXYZ/rTRC, so no matrix/shaper path can be taken):
the patches equal lcms2's own sRGB → profile transform within 2 code values (kiln samples the profile's B2A into its
33³ table), on screen and captured. Both ICC outputs and the HLG one compose in linear light (linear_blend.py checks
the blends). A missing file and a profile of the wrong class each warn once with the file and line, and the output stays sRGB."""
import math
import os
import signal
import struct
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402
import color_management_pixels as cmp  # noqa: E402  (the patches, the primaries and the matrix helpers)
import icc_profiles  # noqa: E402
import lcms2_lut_profile  # noqa: E402
import lcms2_transform  # noqa: E402

MANAGER = "wp_color_manager_v1"
GET_OUTPUT, GET_FEEDBACK = 1, 3
P_SRGB, P_DISPLAY_P3 = 1, 9
TF_SRGB = 9
INFO_ICC_FILE, INFO_PRIMARIES, INFO_PRIMARIES_NAMED, INFO_TF_NAMED = 1, 2, 3, 5
P_BT2020 = 6  # wp_color_manager_v1.primaries.bt2020
TF_HLG = 13  # wp_color_manager_v1.transfer_function.hlg
BT2020 = ((0.708, 0.292), (0.170, 0.797), (0.131, 0.046))
# An output profile no named set matches: primaries wider than sRGB's and a pure 1.8 curve (parametricCurveType 0).
WIDE = ((0.68, 0.31), (0.20, 0.72), (0.145, 0.05), (0.3127, 0.3290))
GAMMA_18 = b"para" + b"\0" * 4 + struct.pack(">HH", 0, 0) + icc_profiles.s15(1.8)


def srgb_on_p3():
    """What each sRGB patch becomes on a Display P3 output (sRGB curve), in 8-bit code values."""
    matrix = cmp.product(cmp.inverse(cmp.to_xyz(cmp.PRIMARIES["display-p3"])), cmp.to_xyz(cmp.PRIMARIES["srgb"]))
    out = []
    for patch in cmp.PATCHES:
        linear = [cmp.srgb_decode(c / 255) for c in patch]
        converted = [min(1.0, max(0.0, sum(matrix[r][k] * linear[k] for k in range(3)))) for r in range(3)]
        out.append(tuple(round(cmp.srgb_encode(c) * 255) for c in converted))
    return out


def hlg_oetf(e):
    """ITU-R BT.2100 table 5: scene light 0..1 → HLG signal."""
    a = 0.17883277
    b = 1 - 4 * a
    c = 0.5 - a * math.log(4 * a)
    return math.sqrt(3 * e) if e <= 1 / 12 else a * math.log(12 * e - b) + c


def srgb_on_hlg(sdr_white=203, peak=1000):
    """What each sRGB patch becomes on a BT.2020 HLG output: its white at `sdr_white` of `peak` cd/m² (display
    light), back to scene light through the inverse of BT.2100's OOTF (gamma 1.2 + 0.42 log10(peak / 1000)), then the
    OETF."""
    gamma = 1.2 + 0.42 * math.log10(peak / 1000)
    matrix = cmp.product(cmp.inverse(cmp.to_xyz(BT2020)), cmp.to_xyz(cmp.PRIMARIES["srgb"]))
    out = []
    for patch in cmp.PATCHES:
        linear = [cmp.srgb_decode(c / 255) for c in patch]
        display = [min(1.0, max(0.0, sum(matrix[r][k] * linear[k] for k in range(3)) * sdr_white / peak))
                   for r in range(3)]
        yd = 0.2627 * display[0] + 0.6780 * display[1] + 0.0593 * display[2]
        scene = [v * yd ** ((1 - gamma) / gamma) if yd > 0 else 0.0 for v in display]
        out.append(tuple(round(hlg_oetf(v) * 255) for v in scene))
    return out


def information(conn, description):
    """The wp_image_description_info_v1 events that say primaries and curve, by opcode, up to done."""
    info = conn.create("wp_image_description_info_v1", description, 1)
    conn.dispatch_until(lambda e: e.obj == info and e.opcode == 0)
    sig = {INFO_PRIMARIES: "iiiiiiii", INFO_PRIMARIES_NAMED: "u", INFO_TF_NAMED: "u"}
    got = {}
    for e in conn.take(info):
        if e.opcode in sig:
            got[e.opcode] = tuple(e.args(sig[e.opcode]))
        elif e.opcode == INFO_ICC_FILE:
            size = e.args("u")[0]
            with os.fdopen(e.fds[0], "rb") as f:
                got[e.opcode] = f.read(size)
    return got


def ready(conn, description):
    event = conn.dispatch_until(lambda e: e.obj == description and e.opcode in (0, 1))
    conn.events.remove(event)
    check(event.opcode == 1, "the description is ready")
    return event.args("u")[0]  # identity


def xy(primaries):
    (r, g, b), white = primaries, cmp.D65
    return tuple(round(v * 1e6) for v in (*r, *g, *b, *white))


def window_with_patches(kiln, conn):
    window = Toplevel(conn, "output colour patches")
    window.commit()
    window.map(cmp.WIDTH, cmp.HEIGHT, color=0xff000000 | cmp.MARK[0] << 16 | cmp.MARK[1] << 8 | cmp.MARK[2])
    buffer = cmp.patches_buffer(conn)
    conn.send(window.surface, 1, ("o", buffer.obj), ("i", 0), ("i", 0))
    conn.send(window.surface, 2, ("i", 0), ("i", 0), ("i", cmp.WIDTH), ("i", cmp.HEIGHT))
    window.commit()
    conn.roundtrip()
    return window, buffer


def find_origin(kiln, first, tolerance=1):
    """Where the first patch (drawn as `first`) starts on screen."""
    def search():
        shot = kiln.screenshot()
        return next(((x, y) for y in range(shot.height) for x in range(shot.width)
                     if all(abs(a - b) <= tolerance for a, b in zip(shot.at(x, y), first))), None)
    kiln.wait_for(lambda: search() is not None, f"the first patch, {first}, on screen", timeout=10)
    return search()


def p3_output(tmp):
    config = Path(tmp) / "kiln.ini"
    config.write_text("[output HEADLESS-1]\ncolor-profile=p3\n")
    want = srgb_on_p3()
    check(want != cmp.PATCHES, f"the P3 reference differs from the bytes ({want})")
    with Kiln("--config", str(config), size="320x240") as kiln, Connection(kiln.client_env) as conn:
        manager = conn.bind(MANAGER, 1)
        wl_output = conn.bind("wl_output", 3)
        output = conn.create("wp_color_management_output_v1", manager, GET_OUTPUT, ("o", wl_output))
        described = conn.create("wp_image_description_v1", output, 1)
        ready(conn, described)
        info = information(conn, described)
        check(info.get(INFO_PRIMARIES) == xy(cmp.PRIMARIES["display-p3"]) and
              info.get(INFO_PRIMARIES_NAMED) == (P_DISPLAY_P3,) and info.get(INFO_TF_NAMED) == (TF_SRGB,),
              f"the output's description: Display P3 primaries (named display_p3), the sRGB curve ({info})")

        window, _buffer = window_with_patches(kiln, conn)
        origin = find_origin(kiln, want[0])
        kiln.wait_for(lambda: cmp.worst(cmp.on_screen(kiln, origin), want) <= 1,
                      f"the patches on screen to be {want}", timeout=10)
        got = cmp.on_screen(kiln, origin)
        check(cmp.worst(got, want) <= 1, f"sRGB patches on the P3 output: on screen {got}, reference {want}")
        copied = cmp.captured(kiln, origin)
        check(cmp.worst(copied, want) <= 1, f"and in an ext-image-copy-capture frame {copied}")

        feedback = conn.create("wp_color_management_surface_feedback_v1", manager, GET_FEEDBACK,
                               ("o", window.surface))
        preferred = conn.create("wp_image_description_v1", feedback, 1)
        ready(conn, preferred)
        pinfo = information(conn, preferred)
        check(pinfo == info, f"the window's preferred description is the output's ({pinfo})")

        # Reloaded to sRGB: both objects hear of it, and the bytes are shown as they are.
        config.write_text("[output HEADLESS-1]\ncolor-profile=srgb\n")
        kiln.proc.send_signal(signal.SIGHUP)
        conn.dispatch_until(lambda e: e.obj == output and e.opcode == 0, timeout=10)
        check(True, "image_description_changed on the output's object after the reload")
        conn.dispatch_until(lambda e: e.obj == feedback and e.opcode == 0, timeout=10)
        check(True, "preferred_changed on the window's feedback after the reload")
        again = conn.create("wp_image_description_v1", output, 1)
        ready(conn, again)
        info = information(conn, again)
        check(info.get(INFO_PRIMARIES_NAMED) == (P_SRGB,), f"now sRGB primaries ({info})")
        kiln.wait_for(lambda: cmp.worst(cmp.on_screen(kiln, origin), cmp.PATCHES) <= 1,
                      f"the patches on screen to be their bytes {cmp.PATCHES}", timeout=10)


def bad_value(tmp):
    config = Path(tmp) / "bad.ini"
    config.write_text("[output HEADLESS-1]\ncolor-profile=adobe\n")
    with Kiln("--config", str(config), size="320x240") as kiln, Connection(kiln.client_env) as conn:
        logs = kiln.logs()
        check(f"kiln: {config}:2: " in logs and "srgb, p3, bt2020-pq, bt2020-hlg or icc:PATH" in logs,
              f"color-profile=adobe warns with the file and line ({logs.strip()[:400]!r})")
        manager = conn.bind(MANAGER, 1)
        wl_output = conn.bind("wl_output", 3)
        output = conn.create("wp_color_management_output_v1", manager, GET_OUTPUT, ("o", wl_output))
        described = conn.create("wp_image_description_v1", output, 1)
        ready(conn, described)
        info = information(conn, described)
        check(info.get(INFO_PRIMARIES_NAMED) == (P_SRGB,) and info.get(INFO_TF_NAMED) == (TF_SRGB,),
              f"and the output stays sRGB ({info})")
        window_with_patches(kiln, conn)
        origin = find_origin(kiln, cmp.PATCHES[0])
        got = cmp.on_screen(kiln, origin)
        check(cmp.worst(got, cmp.PATCHES) <= 1, f"its patches shown as their bytes ({got})")


def output_information(conn):
    manager = conn.bind(MANAGER, 1)
    wl_output = conn.bind("wl_output", 3)
    output = conn.create("wp_color_management_output_v1", manager, GET_OUTPUT, ("o", wl_output))
    described = conn.create("wp_image_description_v1", output, 1)
    ready(conn, described)
    return information(conn, described)


def patches_show(kiln, conn, want, what, tolerance=1):
    check(want != cmp.PATCHES, f"the {what} reference differs from the bytes ({want})")
    window_with_patches(kiln, conn)
    origin = find_origin(kiln, want[0], tolerance)
    kiln.wait_for(lambda: cmp.worst(cmp.on_screen(kiln, origin), want) <= tolerance,
                  f"the patches on screen to be {want}", timeout=10)
    got = cmp.on_screen(kiln, origin)
    check(cmp.worst(got, want) <= tolerance,
          f"sRGB patches on the {what} output: on screen {got}, reference {want} (within {tolerance})")
    copied = cmp.captured(kiln, origin)
    check(cmp.worst(copied, want) <= tolerance, f"and in an ext-image-copy-capture frame {copied}")


def hlg_output(tmp):
    config = Path(tmp) / "hlg.ini"
    config.write_text("[output HEADLESS-1]\ncolor-profile=bt2020-hlg\n")
    want = srgb_on_hlg()
    # BT.2408: HDR reference white (203 cd/m², where SDR white goes) is 75 % HLG on a 1,000 cd/m² display.
    check(abs(want[4][0] - 0.75 * 255) <= 1 and want[4][0] == want[4][1] == want[4][2],
          f"the reference puts sRGB white at 75 % HLG ({want[4]})")
    with Kiln("--config", str(config), size="320x240") as kiln, Connection(kiln.client_env) as conn:
        info = output_information(conn)
        check(info.get(INFO_PRIMARIES_NAMED) == (P_BT2020,) and info.get(INFO_TF_NAMED) == (TF_HLG,),
              f"the output's description: BT.2020 primaries, the HLG curve ({info})")
        patches_show(kiln, conn, want, "HLG")


def icc_output(tmp):
    profile = icc_profiles.profile(primaries=WIDE, version=4,
                                   tags={b"rTRC": GAMMA_18, b"gTRC": GAMMA_18, b"bTRC": GAMMA_18})
    path = Path(tmp) / "wide-gamma-1.8.icc"
    path.write_bytes(profile)
    config = Path(tmp) / "icc.ini"
    config.write_text(f"[output HEADLESS-1]\ncolor-profile=icc:{path}\n")
    want = lcms2_transform.srgb_to_profile(profile, cmp.PATCHES)
    with Kiln("--config", str(config), size="320x240") as kiln, Connection(kiln.client_env) as conn:
        logs = kiln.logs()
        check("kiln: " + str(config) not in logs, f"the profile is taken without a warning ({logs.strip()[:300]!r})")
        info = output_information(conn)
        check(info.get(INFO_ICC_FILE) == profile and INFO_TF_NAMED not in info,
              f"get_information gives the profile back as icc_file ({len(info.get(INFO_ICC_FILE, b''))} bytes "
              f"of {len(profile)}), and no named curve")
        patches_show(kiln, conn, want, "ICC")


def icc_lut_output(tmp):
    profile = lcms2_lut_profile.lut_profile(WIDE, 2.2)
    tags = lcms2_lut_profile.tags(profile)
    matrix_shaper = {"rXYZ", "gXYZ", "bXYZ", "rTRC", "gTRC", "bTRC"}
    check(profile[8] == 2 and tags.get("A2B0") == "mft2" and tags.get("B2A0") == "mft2" and
          not matrix_shaper & set(tags),
          f"the profile is version 2 ({profile[8]}) with lut16 A2B0 and B2A0 and no matrix/shaper tag ({tags})")
    path = Path(tmp) / "wide-lut16-v2.icc"
    path.write_bytes(profile)
    config = Path(tmp) / "icc-lut.ini"
    config.write_text(f"[output HEADLESS-1]\ncolor-profile=icc:{path}\n")
    want = lcms2_transform.srgb_to_profile(profile, cmp.PATCHES)
    with Kiln("--config", str(config), size="320x240") as kiln, Connection(kiln.client_env) as conn:
        logs = kiln.logs()
        check("kiln: " + str(config) not in logs, f"the LUT profile is taken without a warning ({logs.strip()[:300]!r})")
        info = output_information(conn)
        check(info.get(INFO_ICC_FILE) == profile, "get_information gives the LUT profile back as icc_file")
        patches_show(kiln, conn, want, "v2 LUT ICC", tolerance=2)


def bad_icc(tmp):
    wrong_class = Path(tmp) / "scanner.icc"
    wrong_class.write_bytes(icc_profiles.profile(device_class=b"scnr"))
    missing = Path(tmp) / "no-such.icc"
    config = Path(tmp) / "bad-icc.ini"
    config.write_text(f"[output HEADLESS-1]\ncolor-profile=icc:{missing}\n"
                      f"[output HEADLESS-2]\ncolor-profile=icc:{wrong_class}\n")
    with Kiln("--config", str(config), size="320x240") as kiln, Connection(kiln.client_env) as conn:
        logs = kiln.logs()
        for line, path, why in ((2, missing, "No such file"), (4, wrong_class, "not a Display or ColorSpace")):
            found = [ln for ln in logs.splitlines() if ln.startswith(f"kiln: {config}:{line}: ")]
            check(len(found) == 1 and str(path) in found[0] and why in found[0],
                  f"icc:{path.name} warns once with the file, line {line}, the path and why ({found or logs[:400]!r})")
        info = output_information(conn)
        check(info.get(INFO_PRIMARIES_NAMED) == (P_SRGB,) and info.get(INFO_TF_NAMED) == (TF_SRGB,)
              and INFO_ICC_FILE not in info, f"and the output stays sRGB ({info})")
        window_with_patches(kiln, conn)
        origin = find_origin(kiln, cmp.PATCHES[0])
        got = cmp.on_screen(kiln, origin)
        check(cmp.worst(got, cmp.PATCHES) <= 1, f"its patches shown as their bytes ({got})")


def main():
    need("grim")
    with tempfile.TemporaryDirectory(prefix="kiln-output-colour-") as tmp:
        p3_output(tmp)
        bad_value(tmp)
        hlg_output(tmp)
        icc_output(tmp)
        icc_lut_output(tmp)
        bad_icc(tmp)


if __name__ == "__main__":
    run_test(main)
