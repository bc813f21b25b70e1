#!/usr/bin/env python3
"""An input method asks for a popup on a wl_surface that already has another role: wlroots 0.15 frees the popup but
leaves it on the new resource and frees it again when the client goes (a use after free the protocol fuzzer found
under ASan). The client gets zwp_input_method_v2.error.role; kiln and a bystander carry on."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from frame_stamp import FrameStamp, wait_frames  # noqa: E402
from kiln_harness import Kiln, check, client_binary, run_test  # noqa: E402
from wayland_wire import Connection, expect_protocol_error  # noqa: E402


def popup_on_subsurface(kiln):
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 1)
        compositor = conn.bind("wl_compositor", 4)
        subcompositor = conn.bind("wl_subcompositor", 1)
        manager = conn.bind("zwp_input_method_manager_v2", 1)
        parent = conn.create("wl_surface", compositor, 0)
        child = conn.create("wl_surface", compositor, 0)
        conn.create("wl_subsurface", subcompositor, 1, ("o", child), ("o", parent))
        input_method = conn.new_id("zwp_input_method_v2")
        conn.send(manager, 0, ("o", seat), ("n", input_method))  # get_input_method(seat, id)
        conn.create("zwp_input_popup_surface_v2", input_method, 4, ("o", child))
        # kiln may cut the client off before its roundtrip goes out: the error is then in what is left to read.
        try:
            return str(expect_protocol_error(conn))
        except AssertionError:
            return "accepted"


def main():
    with Kiln() as kiln:
        bystander = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "160x120", "--color", "22aa44", "--stamp"])
        shot = kiln.wait_for(lambda: (s := kiln.screenshot()).count((0x22, 0xaa, 0x44), step=4) > 200 and s,
                             "the bystander on screen")
        stamp = FrameStamp(shot, (0x22, 0xaa, 0x44))
        for attempt in range(3):
            answer = popup_on_subsurface(kiln)
            check("zwp_input_method_v2" in answer and ": 0 " in answer,
                  f"attempt {attempt + 1}: the input method's role error ({answer})")
            check(kiln.alive(), f"attempt {attempt + 1}: kiln is still running")
        frames = wait_frames(kiln.screenshot, stamp, what="the bystander")
        check(bystander.poll() is None, f"the bystander is still drawing ({frames} new frames on screen)")
        status, _ = kiln.stop()
        check(status == 0, f"kiln exits 0 (got {status})")


run_test(main)
