#!/usr/bin/env python3
"""wayland-info (a client no one here wrote) lists every global kiln claims to offer, at the version kiln offers."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402

# Global -> the version kiln offers (wlroots 0.15.1's, or kiln's own): a client that binds a newer one fails, so a
# change is a change of what clients can rely on.
EXPECTED = {"wl_compositor": 4, "wl_subcompositor": 1, "wl_shm": 2, "xdg_wm_base": 7, "wp_presentation": 1,
            "wp_viewporter": 1, "zxdg_output_manager_v1": 3, "zwlr_screencopy_manager_v1": 3,
            "wl_data_device_manager": 3, "wl_seat": 7, "wl_output": 4, "zwp_text_input_manager_v3": 1,
            "zwp_input_method_manager_v2": 1, "zwlr_input_inhibit_manager_v1": 1, "zwp_tablet_manager_v2": 1,
            "zwp_pointer_gestures_v1": 3, "zwlr_layer_shell_v1": 4,
            # ext-image-capture-source and ext-image-copy-capture, kiln's own (wayland-protocols 1.43's newest)
            "ext_output_image_capture_source_manager_v1": 1, "ext_foreign_toplevel_image_capture_source_manager_v1": 1,
            "ext_image_copy_capture_manager_v1": 1}


def offered(stdout):
    """wayland-info's global lines, "interface: 'NAME',   version:  N, name: M", as {NAME: N}."""
    versions = {}
    for line in stdout.splitlines():
        if line.startswith("interface: '"):
            name = line.split("'")[1]
            fields = dict(field.strip().split(":", 1) for field in line.split("',", 1)[1].split(","))
            versions[name] = int(fields["version"])
    return versions


def main():
    need("wayland-info")
    with Kiln() as kiln:
        result = kiln.run(["wayland-info"])
        check(result.returncode == 0, f"wayland-info exits 0 (got {result.returncode})")
        versions = offered(result.stdout)
        for name, version in EXPECTED.items():
            check(versions.get(name) == version, f"global {name} is listed at version {version} "
                  f"(got {versions.get(name)})")
        status, _ = kiln.stop()
        check(status == 0, f"kiln exits 0 on SIGTERM (got {status})")


run_test(main)
