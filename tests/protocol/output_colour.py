#!/usr/bin/env python3
"""kiln.ini's [output NAME] color-profile=: with color-profile=p3 on HEADLESS-1 a plain sRGB window's patches show on
screen (grim) and in an ext-image-copy-capture frame as their Display P3 values, computed here in plain Python (decode
the sRGB curve, RGB → XYZ with sRGB's primaries, XYZ → RGB with Display P3's, clip, encode the sRGB curve), within 1
code value; color-management-v1 tells the output's description (Display P3 primaries, named display_p3, sRGB curve),
and a surface's preferred one is that record. A reload to color-profile=srgb sends image_description_changed and
preferred_changed and shows the bytes as they are; a kiln.ini whose value is unknown warns
"kiln: FILE:LINE: reason" and keeps the output sRGB."""
import signal
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402
import color_management_pixels as cmp  # noqa: E402  (the patches, the primaries and the matrix helpers)

MANAGER = "wp_color_manager_v1"
GET_OUTPUT, GET_FEEDBACK = 1, 3
P_SRGB, P_DISPLAY_P3 = 1, 9
TF_SRGB = 9
INFO_PRIMARIES, INFO_PRIMARIES_NAMED, INFO_TF_NAMED = 2, 3, 5


def srgb_on_p3():
    """What each sRGB patch becomes on a Display P3 output (sRGB curve), in 8-bit code values."""
    matrix = cmp.product(cmp.inverse(cmp.to_xyz(cmp.PRIMARIES["display-p3"])), cmp.to_xyz(cmp.PRIMARIES["srgb"]))
    out = []
    for patch in cmp.PATCHES:
        linear = [cmp.srgb_decode(c / 255) for c in patch]
        converted = [min(1.0, max(0.0, sum(matrix[r][k] * linear[k] for k in range(3)))) for r in range(3)]
        out.append(tuple(round(cmp.srgb_encode(c) * 255) for c in converted))
    return out


def information(conn, description):
    """The wp_image_description_info_v1 events that say primaries and curve, by opcode, up to done."""
    info = conn.create("wp_image_description_info_v1", description, 1)
    conn.dispatch_until(lambda e: e.obj == info and e.opcode == 0)
    sig = {INFO_PRIMARIES: "iiiiiiii", INFO_PRIMARIES_NAMED: "u", INFO_TF_NAMED: "u"}
    return {e.opcode: tuple(e.args(sig[e.opcode])) for e in conn.take(info) if e.opcode in sig}


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


def find_origin(kiln, first):
    """Where the first patch (drawn as `first`) starts on screen."""
    def search():
        shot = kiln.screenshot()
        return next(((x, y) for y in range(shot.height) for x in range(shot.width)
                     if all(abs(a - b) <= 1 for a, b in zip(shot.at(x, y), first))), None)
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
        check(f"kiln: {config}:2: " in logs and "srgb, p3 or bt2020-pq" in logs,
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


def main():
    need("grim")
    with tempfile.TemporaryDirectory(prefix="kiln-output-colour-") as tmp:
        p3_output(tmp)
        bad_value(tmp)


if __name__ == "__main__":
    run_test(main)
