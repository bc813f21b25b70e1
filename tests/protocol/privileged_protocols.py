#!/usr/bin/env python3
"""gamma-control and export-dmabuf on headless kiln: offered to every client by default, as sway does; each answers
(a headless output has no gamma ramp, and a frame export ends in a frame or a cancel, never silence); and kiln.ini's
[security] restrict hides each from clients kiln did not start, while a startup command still sees them."""
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import wayland_wire  # noqa: E402
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402

GAMMA = "zwlr_gamma_control_manager_v1"
EXPORT = "zwlr_export_dmabuf_manager_v1"
wayland_wire.FD_EVENTS[("zwlr_export_dmabuf_frame_v1", 1)] = 1  # object: the plane's dma-buf


def offered_by_default():
    with Kiln() as kiln:
        with Connection(kiln.client_env) as conn:
            for name in (GAMMA, EXPORT):
                check(name in conn.globals, f"{name} is offered by default")

            output = conn.bind("wl_output", 1)
            gamma = conn.create("zwlr_gamma_control_v1", conn.bind(GAMMA, 1), 0, ("o", output))
            event = conn.dispatch_until(lambda e: e.obj == gamma)
            check(event.opcode == 1, f"a headless output has no gamma ramp: get_gamma_control answers failed "
                  f"(event {event.opcode})")

            frame = conn.create("zwlr_export_dmabuf_frame_v1", conn.bind(EXPORT, 1), 0, ("i", 0), ("o", output))
            window = Toplevel(conn, "something to draw")  # a frame to export: kiln draws only what changed
            window.commit()
            window.map(100, 100)
            event = conn.dispatch_until(lambda e: e.obj == frame and e.opcode in (2, 3), timeout=10)
            objects = [e for e in conn.events if e.obj == frame and e.opcode == 1]
            for obj in objects:
                for fd in obj.fds:
                    os.close(fd)
            if event.opcode == 2:
                check(len(objects) >= 1, f"the next frame is exported as a dma-buf ({len(objects)} plane(s))")
            else:
                reason = event.args("u")[0]
                check(reason == 0, f"the next frame, in CPU memory on this output, is cancelled as temporary "
                      f"(reason {reason})")


def restricted_by_config():
    need("wayland-info")
    scratch = tempfile.mkdtemp(prefix="kiln-privileged-")
    try:
        ini = Path(scratch) / "kiln.ini"
        ini.write_text("[security]\nrestrict=gamma-control\nrestrict=export-dmabuf\n")
        seen = Path(scratch) / "startup-globals"
        with Kiln("--config", str(ini), "-s", f"wayland-info > {seen}.part; mv {seen}.part {seen}") as kiln:
            with Connection(kiln.client_env) as conn:
                for name in (GAMMA, EXPORT):
                    check(name not in conn.globals, f"with [security] restrict, {name} is hidden from a client "
                          "kiln did not start")
                check("zwlr_screencopy_manager_v1" in conn.globals, "screencopy, not restricted, is still offered")
            kiln.wait_for(seen.exists, "the startup command's wayland-info")
            listed = seen.read_text()
            for name in (GAMMA, EXPORT):
                check(f"'{name}'" in listed, f"a client kiln started with -s still sees {name}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    offered_by_default()
    restricted_by_config()


run_test(main)
