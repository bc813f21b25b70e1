#!/usr/bin/env python3
"""The program cache covers colour: a window with a Display P3 description (color-management-v1) makes kiln link a
colour conversion program on a cold start and record it in its precompile list; a warm start with the same window
prepares that program before the first frame from the list, links 0 programs and meets no new one, and
`kiln-cache stats` names the variant in words."""
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


def described_window(kiln):
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
                   if shot.at(x, y)[0] > 150]
            return red and all(p != RED and p[0] > RED[0] for p in red)
        kiln.wait_for(converted, "the P3 window shown converted (redder than its bytes)")


def start(cache, stats):
    """One kiln run with the described window; its stats after exit and its log."""
    with Kiln("--cache-dir", str(cache), "--stats", str(stats), "--precompile", "fast", stats=False,
              size="320x240", env={"MESA_SHADER_CACHE_DISABLE": "true"}) as kiln:
        described_window(kiln)
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


if __name__ == "__main__":
    run_test(main)
