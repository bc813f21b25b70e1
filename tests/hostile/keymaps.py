#!/usr/bin/env python3
"""Virtual keyboards with keymaps that lie: wlroots 0.15 maps `size` bytes of the client's fd and reads them as a C
string, so a file shorter than `size` killed kiln with SIGBUS (found by the protocol fuzzer) and a keymap with no NUL
read past the mapping. Each is the client's no_keymap error now; kiln and a bystander carry on, and an honest keymap
still works.

A file that is long enough when kiln looks and shrinks while kiln or wlroots reads it (issue #29: a 16 MiB keymap
truncated right after the request, kiln killed by SIGBUS 7 times in 7) is tried many times, truncated at delays
spread over the few milliseconds kiln's check and wlroots' read take: kiln copies the keymap with pread and hands
wlroots a sealed memfd of its own (wlroots closes it), so kiln stays up, keeps no fd of the client's file or of its
copy, and keys typed through a virtual keyboard with an honest keymap sent the same way arrive at the focused
window. A keymap over kiln's cap (4 MiB) is refused before a byte of it is read."""
import collections
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from frame_stamp import FrameStamp, wait_frames  # noqa: E402
from kiln_harness import Kiln, check, client_binary, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel, expect_protocol_error  # noqa: E402

VIRTUAL_KEYBOARD_NO_KEYMAP = 0
KEYMAP_CAP = 4 << 20  # the most kiln copies (request_guard.cpp)
K_ENTER, K_KEY = 1, 3  # wl_keyboard events
KEY_A, KEY_T = 30, 20  # evdev codes


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


def spin(seconds):
    """Waits `seconds` without sleeping (a sleep's wake-up is too coarse for the window tried)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def shrinking_keymap(kiln, size, delay):
    """A keymap of `size` bytes ('a's, then a NUL) whose file the client truncates `delay` seconds after sending it;
    what came back: the protocol error, or 'accepted'."""
    fd = os.memfd_create("kiln-test-shrinking-keymap")
    os.write(fd, b"a" * (size - 1) + b"\0")
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 1)
        manager = conn.bind("zwp_virtual_keyboard_manager_v1", 1)
        keyboard = conn.new_id("zwp_virtual_keyboard_v1")
        conn.send(manager, 0, ("o", seat), ("n", keyboard))
        conn.roundtrip()  # the keyboard made (kiln sets it up): what follows is the keymap's request alone
        conn.send(keyboard, 0, ("u", 1), ("u", size), fds=[fd])
        spin(delay)
        os.ftruncate(fd, 0)
        os.close(fd)
        try:
            return str(expect_protocol_error(conn))
        except AssertionError:
            return "accepted"


def kiln_fds(kiln, name):
    """How many of kiln's fds name a memfd whose name starts with `name`."""
    count = 0
    fd_dir = Path(f"/proc/{kiln.proc.pid}/fd")
    for entry in fd_dir.iterdir():
        try:
            count += os.readlink(entry).startswith(f"/memfd:{name}")
        except OSError:
            pass  # closed meanwhile
    return count


def keys_arrive(kiln, keymap):
    """A window with keyboard focus, and a virtual keyboard with `keymap` sent from a memfd the client truncates as
    soon as kiln has taken it: the keys typed on it reach the window."""
    with Connection(kiln.client_env) as window_conn, Connection(kiln.client_env) as typist:
        seat = window_conn.bind("wl_seat", 5)
        window_keyboard = window_conn.create("wl_keyboard", seat, 1)
        window = Toplevel(window_conn, "keymaps: the focused window")
        window.commit()
        window.map(200, 150, color=0xff2266ee)
        window_conn.dispatch_until(lambda e: e.obj == window_keyboard and e.opcode == K_ENTER)
        check(True, "the window has keyboard focus")

        fd = memfd(keymap)
        typist_seat = typist.bind("wl_seat", 1)
        manager = typist.bind("zwp_virtual_keyboard_manager_v1", 1)
        keyboard = typist.new_id("zwp_virtual_keyboard_v1")
        typist.send(manager, 0, ("o", typist_seat), ("n", keyboard))
        typist.send(keyboard, 0, ("u", 1), ("u", len(keymap)), fds=[fd])
        typist.roundtrip()
        os.ftruncate(fd, 0)  # kiln copied it: what the client does with its file now is nothing to kiln
        os.close(fd)
        for n, key in enumerate((KEY_T, KEY_A)):
            typist.send(keyboard, 1, ("u", 10 * n), ("u", key), ("u", 1))
            typist.send(keyboard, 1, ("u", 10 * n + 1), ("u", key), ("u", 0))
        typist.roundtrip()
        got = []
        deadline = time.monotonic() + 5
        while len(got) < 4 and time.monotonic() < deadline:
            window_conn.roundtrip()
            window_conn.answer_pings(window.wm_base)
            for event in window_conn.take(window_keyboard, K_KEY):
                _, _, key, state = event.args("uuuu")
                got.append((key, state))
        check(got == [(KEY_T, 1), (KEY_T, 0), (KEY_A, 1), (KEY_A, 0)],
              f"keys typed on the virtual keyboard reach the window ({got})")


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
        answer = send_keymap(kiln, memfd(b"a" * (KEYMAP_CAP + 1) + b"\0"), KEYMAP_CAP + 2)
        check(f": {VIRTUAL_KEYBOARD_NO_KEYMAP} " in answer and "more than kiln takes" in answer,
              f"a keymap over kiln's cap is the client's no_keymap error ({answer})")

        # Shrunk while kiln looks at it or wlroots reads it: the delays step through both, again and again. The
        # 16 MiB keymap is the outside probe's own (refused for its size now, before a byte is read); the other is
        # as large as kiln copies, so its copy and wlroots' read take longest.
        fds_before = len(os.listdir(f"/proc/{kiln.proc.pid}/fd"))
        outcomes = collections.Counter()
        for size, tries in ((16 << 20, 12), (KEYMAP_CAP, 40)):
            for n in range(tries):
                delay = (n % 20) * 0.00015  # 0 to 2.85 ms
                what = f"a {size}-byte keymap truncated {delay * 1000:.2f} ms after it was sent"
                try:
                    answer = shrinking_keymap(kiln, size, delay)
                except (AssertionError, OSError) as error:
                    time.sleep(0.5)
                    check(kiln.alive(), f"kiln is alive after {what} (it ended with status {kiln.proc.poll()}: "
                          f"{-(kiln.proc.poll() or 0)} is SIGBUS's number; the client saw: {error})")
                    raise
                check(kiln.alive(), f"kiln is alive after {what}")
                outcomes[answer.split(":")[0] if ":" in answer else answer] += 1
        check(True, f"kiln lived through {sum(outcomes.values())} keymaps truncated under it ({dict(outcomes)})")
        check(kiln_fds(kiln, "kiln-test") == 0, "kiln keeps no fd of the clients' keymap files")
        fds_after = len(os.listdir(f"/proc/{kiln.proc.pid}/fd"))
        check(fds_after <= fds_before + 4, f"nor any other fd for them ({fds_before} fds before, {fds_after} after)")

        keys_arrive(kiln, keymap)
        kiln.wait_for(lambda: kiln_fds(kiln, "kiln-virtual-keyboard-keymap") == 0,
                      "kiln to close its copies of the keymaps once wlroots has them", timeout=5)
        check(True, "kiln keeps no fd of its copies of the keymaps")
        first = kiln.screenshot()
        check(bystander.poll() is None and first.count((0x22, 0xaa, 0x44), tolerance=2) > 160 * 120 // 2,
              "the bystander is still on screen")
        frames = wait_frames(kiln.screenshot, FrameStamp(first, (0x22, 0xaa, 0x44)), what="the bystander")
        check(True, f"and still drawing ({frames} new frames on screen)")
        status, _ = kiln.stop()
        check(status == 0, f"kiln exits 0 (got {status})")


run_test(main)
