#!/usr/bin/env python3
"""kiln.ini on a headless kiln: [background] color fills an empty output (grim), and without it kiln's default
0x202830 does (--background wins over both; the harness pins 0x000000), [output HEADLESS-1] scale, mode, transform,
position and enabled reach clients (wayland-info), [cache] directory and [security] restrict apply; the same runs
without the file show kiln's defaults, so each check can fail."""
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, rgb, run_test  # noqa: E402

DEFAULT_BACKGROUND = rgb("202830")  # compositor/session/settings.hpp


def wayland_info(kiln):
    result = kiln.run(["wayland-info"], timeout=20)
    check(result.returncode == 0, "wayland-info runs")
    return result.stdout


def output_facts(info):
    """What wayland-info says of the outputs: {'scale': ..., 'mode': (w, h), 'transform': ..., 'logical': (x, y)}."""
    facts = {"outputs": info.count("interface: 'wl_output'")}
    if m := re.search(r"scale: (\d+)", info):
        facts["scale"] = int(m.group(1))
    if m := re.search(r"width: (\d+) px, height: (\d+) px", info):
        facts["mode"] = (int(m.group(1)), int(m.group(2)))
    if m := re.search(r"output_transform: (\S+)", info):
        facts["transform"] = m.group(1).rstrip(",")
    if m := re.search(r"logical_x: (-?\d+), logical_y: (-?\d+)", info):
        facts["logical"] = (int(m.group(1)), int(m.group(2)))
    return facts


def main():
    need("grim")
    need("wayland-info")
    colour = rgb("336699")
    with tempfile.TemporaryDirectory(prefix="kiln-config-outputs-") as tmp:
        cache = Path(tmp) / "program-cache"
        config = Path(tmp) / "kiln.ini"
        config.write_text(f"""[background]
color=0x336699
[output HEADLESS-1]
scale=2
mode=400x300
transform=90
position=100,50
[cache]
directory={cache}
""")
        with Kiln("--config", str(config), size=None, background=None) as kiln:
            shot = kiln.screenshot()
            total = shot.width * shot.height
            hits = shot.count(colour, tolerance=1)
            check(hits == total, f"[background] color=0x336699 fills the empty output ({hits} of {total} pixels)")
            facts = output_facts(wayland_info(kiln))
            check(facts.get("scale") == 2, f"[output HEADLESS-1] scale=2 reaches wl_output ({facts})")
            check(facts.get("mode") == (400, 300), f"mode=400x300 replaces the default headless size ({facts})")
            check(facts.get("transform") == "90°", f"transform=90 reaches wl_output ({facts})")
            check(facts.get("logical") == (100, 50), f"position=100,50 reaches xdg_output ({facts})")
            status, _ = kiln.stop()
            check(status == 0, f"kiln exits 0 (got {status})")
        check(cache.is_dir() and any(cache.iterdir()), f"[cache] directory={cache} holds kiln's program cache")

        with Kiln("--config", str(config), size="640x480", background="0x0a0b0c") as kiln:
            facts = output_facts(wayland_info(kiln))
            check(facts.get("mode") == (640, 480) and facts.get("scale") == 2,
                  f"--headless-size wins over mode=400x300; the file's other keys still apply ({facts})")
            shot = kiln.screenshot()
            hits = shot.count((0x0a, 0x0b, 0x0c), tolerance=1)
            check(hits == shot.width * shot.height, f"--background 0x0a0b0c wins over [background] color=0x336699 "
                                                    f"({hits} of {shot.width * shot.height} pixels)")

        with Kiln(size="640x480", background=None) as kiln:
            shot = kiln.screenshot()
            hits = shot.count(DEFAULT_BACKGROUND, tolerance=1)
            check(hits == shot.width * shot.height, f"without kiln.ini or --background, kiln's default 0x202830 (a "
                                                    f"dark slate blue, not black) fills the empty output ({hits} of "
                                                    f"{shot.width * shot.height} pixels)")

        with Kiln(size="640x480") as kiln:
            shot = kiln.screenshot()
            check(shot.count(colour, tolerance=1) == 0 and shot.count((0, 0, 0), tolerance=1) == shot.width * shot.height,
                  "without kiln.ini, as the harness starts it (--background 0x000000), the empty output is black")
            facts = output_facts(wayland_info(kiln))
            check(facts.get("scale") == 1 and facts.get("mode") == (640, 480) and facts.get("transform") == "normal",
                  f"without kiln.ini the output is as --headless-size makes it ({facts})")

        config.write_text("[output HEADLESS-1]\nenabled=false\n[security]\nrestrict=screencopy\n")
        with Kiln("--config", str(config)) as kiln:
            facts = output_facts(wayland_info(kiln))
            check(facts["outputs"] == 0, f"enabled=false: no wl_output is offered ({facts})")
            result = kiln.run(["wayland-info"], timeout=20)
            check("zwlr_screencopy_manager_v1" not in result.stdout,
                  "[security] restrict=screencopy hides screencopy from a client kiln did not start")
            status, _ = kiln.stop()
            check(status == 0, f"kiln with its only output disabled exits 0 (got {status})")


run_test(main)
