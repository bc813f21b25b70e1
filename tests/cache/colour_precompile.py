#!/usr/bin/env python3
"""The program cache covers colour: a window with a Display P3 description (color-management-v1) makes kiln link a
colour conversion program on a cold start and record it in its precompile list; a warm start with the same window
prepares that program before the first frame from the list, links 0 programs and meets no new one, and
`kiln-cache stats` names the variant in words. The same window on a color-profile=bt2020-hlg output (composed in linear
light, encoded by the linear_encode_to_hlg program): the cold start meets the HLG encode program, the warm start links
0 programs and meets no new one."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel, shm_buffer  # noqa: E402

TOOL = os.environ["KILN_CACHE_TOOL"]
MANAGER = "wp_color_manager_v1"
GET_SURFACE, PARAMS_CREATOR = 2, 5
RELATIVE = 1
P_DISPLAY_P3, TF_SRGB = 9, 9
P_CREATE, P_TF_NAMED, P_PRIMARIES_NAMED = 0, 1, 3
SIZE = 64
RED = (200, 30, 30)  # Display P3 red shown on sRGB: clipped to more red, less green and blue
# P3 primaries with the sRGB curve, into the linear-light intermediate of the sRGB output (doc/colour.md)
VARIANT = "decode srgb, matrix, encode ext_linear"


def redder(p):
    """On an sRGB output P3 red shows clipped to more red than its bytes."""
    return p[0] > RED[0]


def hlg_red(p):
    """On an HLG output (SDR white at 75 % HLG) it shows less red than its bytes, but still red."""
    return 100 < p[0] < RED[0] and p[1] < 100


def described_window(kiln, shown=redder):
    """Shows a P3-described red window and waits until the screen shows it converted (not the raw bytes)."""
    need("grim")
    with Connection(kiln.client_env) as conn:
        manager = conn.bind(MANAGER, 1)
        window = Toplevel(conn, "colour precompile")
        window.commit()
        window.wait_configure()
        creator = conn.create("wp_image_description_creator_params_v1", manager, PARAMS_CREATOR)
        conn.send(creator, P_PRIMARIES_NAMED, ("u", P_DISPLAY_P3))
        conn.send(creator, P_TF_NAMED, ("u", TF_SRGB))
        description = conn.create("wp_image_description_v1", creator, P_CREATE)
        ready = conn.dispatch_until(lambda e: e.obj == description and e.opcode in (0, 1))
        check(ready.opcode == 1, "the Display P3 description is ready")
        surface_colour = conn.create("wp_color_management_surface_v1", manager, GET_SURFACE, ("o", window.surface))
        conn.send(surface_colour, 1, ("o", description), ("u", RELATIVE))  # set_image_description
        buffer = shm_buffer(conn, SIZE, SIZE, 0xff000000 | RED[0] << 16 | RED[1] << 8 | RED[2])
        conn.send(window.surface, 1, ("o", buffer), ("i", 0), ("i", 0))
        conn.send(window.surface, 2, ("i", 0), ("i", 0), ("i", SIZE), ("i", SIZE))
        window.commit()
        conn.roundtrip()

        def converted():
            shot = kiln.screenshot()
            red = [shot.at(x, y) for y in range(0, shot.height, 4) for x in range(0, shot.width, 4)
                   if shot.at(x, y)[0] > 100]
            return red and all(p != RED and shown(p) for p in red)
        kiln.wait_for(converted, f"the P3 window shown converted ({shown.__doc__.strip()})")


def start(cache, stats, config=None, shown=redder):
    """One kiln run with the described window (kiln.ini `config` where given); its stats after exit and its log."""
    args = ["--config", str(config)] if config else []
    with Kiln("--cache-dir", str(cache), "--stats", str(stats), "--precompile", "fast", *args, stats=False,
              size="320x240", env={"MESA_SHADER_CACHE_DISABLE": "true"}) as kiln:
        described_window(kiln, shown)
        log = Path(kiln.log_path).read_text(errors="replace")
    return json.loads(Path(stats).read_text()), log


def main():
    with tempfile.TemporaryDirectory(prefix="kiln-colour-cache-") as tmp:
        work = Path(tmp)
        cache = work / "cache"
        cold, cold_log = start(cache, work / "cold.json")
        check("new program encountered: colour_" in cold_log, "a cold start meets the colour program")
        check(cold["programs"]["linked_from_source"] >= 1,
              f"a cold start links programs ({cold['programs']['linked_from_source']})")

        result = subprocess.run([TOOL, "--cache-dir", str(cache), "--json", "stats"], capture_output=True, text=True,
                                timeout=60)
        check(result.returncode == 0, f"kiln-cache stats runs ({result.stderr})")
        variants = [v for d in json.loads(result.stdout)["drivers"] for v in d["colour_variants"]]
        check(any(v["variant"].endswith(VARIANT) and v["program"].startswith("colour_") for v in variants),
              f"kiln-cache stats lists the colour variant '{VARIANT}' ({variants})")
        text = subprocess.run([TOOL, "--cache-dir", str(cache), "stats"], capture_output=True, text=True,
                              timeout=60).stdout
        check(any(line.strip().startswith("colour ") and line.endswith(VARIANT) for line in text.splitlines()),
              f"and says it in words:\n{text}")

        warm, warm_log = start(cache, work / "warm.json")
        check(warm["programs"]["colour_prepared"] >= 1,
              f"a warm start prepares the recorded colour program before the first frame "
              f"({warm['programs']['colour_prepared']})")
        check(warm["programs"]["linked_from_source"] == 0,
              f"a warm start with the colour-managed window links 0 programs "
              f"({warm['programs']['linked_from_source']})")
        check("new program encountered" not in warm_log, "a warm start meets no new program")

        # An HLG output: frames in linear light, encoded by the HLG encode program, which the cache keeps too.
        config = work / "hlg.ini"
        config.write_text("[output HEADLESS-1]\ncolor-profile=bt2020-hlg\n")
        hlg_cache = work / "hlg-cache"
        cold, cold_log = start(hlg_cache, work / "hlg-cold.json", config, hlg_red)
        check("new program encountered: linear_encode_to_hlg" in cold_log,
              "on the HLG output a cold start meets the HLG encode program")
        check(cold["renderer"]["linear_light_frames"] > 0,
              f"and composes in linear light ({cold['renderer']['linear_light_frames']} frames)")
        warm, warm_log = start(hlg_cache, work / "hlg-warm.json", config, hlg_red)
        check(warm["programs"]["colour_prepared"] >= 1 and warm["programs"]["linked_from_source"] == 0,
              f"a warm start on the HLG output prepares the colour program and links 0 programs "
              f"({warm['programs']['colour_prepared']}, {warm['programs']['linked_from_source']})")
        check("new program encountered" not in warm_log, "a warm start on the HLG output meets no new program")


if __name__ == "__main__":
    run_test(main)
