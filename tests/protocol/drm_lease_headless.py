#!/usr/bin/env python3
"""drm-lease-v1 where there is no DRM device (headless): no wp_drm_lease_device_v1 is offered, and an output kiln.ini
keeps for lease (lease=true) is used for the desktop instead, with one line saying why. The lease itself is tested
on DRM in the VM (tests/vm/guest_drm_lease.py)."""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402


def main():
    need("wayland-info")
    with tempfile.TemporaryDirectory(prefix="kiln-lease-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text("[output HEADLESS-1]\nlease=true\n")
        with Kiln("--config", str(config)) as kiln:
            info = kiln.run(["wayland-info"], timeout=20).stdout
            check("wp_drm_lease_device_v1" not in info, "headless: no wp_drm_lease_device_v1 (no DRM device to lease)")
            check(info.count("interface: 'wl_output'") == 1, "lease=true on headless: the output is on the desktop")
            line = "kiln: output HEADLESS-1: lease=true needs the DRM backend; used for the desktop"
            check(kiln.logs().count(line) == 1, f"and kiln says why, once ('{line}')")


run_test(main)
