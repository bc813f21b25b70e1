#!/usr/bin/env python3
"""wayland-info (a client no one here wrote) lists every global kiln claims to offer."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402

EXPECTED = ["wl_compositor", "wl_subcompositor", "wl_shm", "xdg_wm_base", "wp_presentation", "wp_viewporter",
            "zxdg_output_manager_v1", "zwlr_screencopy_manager_v1", "wl_data_device_manager", "wl_seat",
            "wl_output", "zwp_text_input_manager_v3", "zwp_input_method_manager_v2",
            "zwlr_input_inhibit_manager_v1", "zwp_tablet_manager_v2"]


def main():
    need("wayland-info")
    with Kiln() as kiln:
        result = kiln.run(["wayland-info"])
        check(result.returncode == 0, f"wayland-info exits 0 (got {result.returncode})")
        listed = {line.split("'")[1] for line in result.stdout.splitlines() if line.startswith("interface: '")}
        for name in EXPECTED:
            check(name in listed, f"global {name} is listed")
        check("xdg_wm_base" in result.stdout and "version:  2" in result.stdout or "xdg_wm_base" in listed,
              "xdg_wm_base advertised")
        status, _ = kiln.stop()
        check(status == 0, f"kiln exits 0 on SIGTERM (got {status})")


run_test(main)
