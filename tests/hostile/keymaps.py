#!/usr/bin/env python3
"""Virtual keyboards with keymaps that lie: wlroots 0.15 maps `size` bytes of the client's fd and reads them as a C
string, so a file shorter than `size` killed kiln with SIGBUS (found by the protocol fuzzer) and a keymap with no NUL
read past the mapping. Each is the client's no_keymap error now; kiln and a bystander carry on, and an honest keymap
still works."""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from frame_stamp import FrameStamp, wait_frames  # noqa: E402
from kiln_harness import Kiln, check, client_binary, run_test  # noqa: E402
from wayland_wire import Connection, expect_protocol_error  # noqa: E402

VIRTUAL_KEYBOARD_NO_KEYMAP = 0


def memfd(data, size=None):
    fd = os.memfd_create("kiln-test-keymap")
    os.write(fd, data)
    if size is not None:
        os.ftruncate(fd, size)
    return fd


def send_keymap(kiln, fd, size):
    """Sends a keymap of `size` bytes from `fd`; the compositor's answer: 'accepted' or the protocol error."""
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 1)
        manager = conn.bind("zwp_virtual_keyboard_manager_v1", 1)
        keyboard = conn.new_id("zwp_virtual_keyboard_v1")
        conn.send(manager, 0, ("o", seat), ("n", keyboard))
        conn.send(keyboard, 0, ("u", 1), ("u", size), fds=[fd])
        os.close(fd)
        # kiln may cut the client off before its roundtrip goes out: the error is then in what is left to read.
        try:
            return str(expect_protocol_error(conn))
        except AssertionError:
            return "accepted"


def honest_keymap(kiln):
    """kiln's own keymap, as wl_keyboard.keymap hands it to clients (NUL-terminated)."""
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 1)
        keyboard = conn.create("wl_keyboard", seat, 1)
        event = conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 0)
        _, size = event.args("uu")
        fd = event.fds.pop()
        data = os.pread(fd, size, 0)
        os.close(fd)
        return data


def main():
    with Kiln() as kiln:
        bystander = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "160x120", "--color", "22aa44", "--stamp"])
        keymap = honest_keymap(kiln)
        check(keymap.endswith(b"\0"), f"kiln's keymap is NUL-terminated ({len(keymap)} bytes)")
        cases = {
            # A whole page without a NUL, then the pages past the file's end: xkbcommon's strlen meets SIGBUS.
            "a file shorter than the size": (memfd(b"x" * 4096), 8192),
            "no NUL within the size": (memfd(b"x" * 4096), 4096),
            "an empty keymap": (memfd(keymap), 0),
        }
        read_end, write_end = os.pipe()
        os.close(write_end)
        cases["a pipe"] = (read_end, 4096)
        for what, (fd, size) in cases.items():
            answer = send_keymap(kiln, fd, size)
            check(f"zwp_virtual_keyboard_v1" in answer and f": {VIRTUAL_KEYBOARD_NO_KEYMAP} " in answer,
                  f"{what}: the client's no_keymap error ({answer})")
            check(kiln.alive(), f"{what}: kiln is still running")
        answer = send_keymap(kiln, memfd(keymap), len(keymap))
        check(answer == "accepted", f"an honest keymap is accepted ({answer})")
        first = kiln.screenshot()
        check(bystander.poll() is None and first.count((0x22, 0xaa, 0x44), tolerance=2) > 160 * 120 // 2,
              "the bystander is still on screen")
        frames = wait_frames(kiln.screenshot, FrameStamp(first, (0x22, 0xaa, 0x44)), what="the bystander")
        check(True, f"and still drawing ({frames} new frames on screen)")
        status, _ = kiln.stop()
        check(status == 0, f"kiln exits 0 (got {status})")


run_test(main)
