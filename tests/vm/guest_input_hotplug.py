#!/usr/bin/env python3
"""Runs inside the VM: kiln on vkms under seatd with libinput fed by udevd; uinput devices plugged in after kiln
started reach a client's wl_seat (capabilities gain keyboard and pointer, keys typed on the virtual keyboard arrive
as wl_keyboard.key at the focused window), a VT switch takes the devices away and brings them back, and unplugging
them drops the capabilities again."""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check, run_test, skip  # noqa: E402
from vt_session import ENV, KilnOnVt, active_vt, chvt, start_udevd  # noqa: E402
from wayland_wire import Connection, ProtocolError, Toplevel  # noqa: E402
import uinput  # noqa: E402

POINTER, KEYBOARD = 1, 2  # wl_seat.capability
CAPS = {0: "none", POINTER: "pointer", KEYBOARD: "keyboard", POINTER | KEYBOARD: "pointer and keyboard"}


class SeatWatch:
    """A client's view of the seat: its capabilities and, with a window focused, the keys its keyboard hears."""

    def __init__(self, conn):
        self.conn = conn
        self.seat = conn.bind("wl_seat", 5)
        self.keyboard = None
        self.window = None

    def wait_caps(self, caps, why, timeout=60):
        """Waits for wl_seat.capabilities to say exactly `caps` (the latest announcement, transient ones skipped)."""
        try:
            self.conn.dispatch_until(lambda e: e.obj == self.seat and e.opcode == 0 and e.args("u")[0] == caps,
                                     timeout)
        except ProtocolError as error:
            seen = [CAPS.get(e.args("u")[0]) for e in self.conn.events if e.obj == self.seat and e.opcode == 0]
            raise AssertionError(f"{why}: the seat never announced {CAPS[caps]} (announced: {seen}): {error}")
        self.conn.take(self.seat, 0)
        check(True, f"{why}: the seat has {CAPS[caps]}")

    def take_keyboard(self):
        """A new wl_keyboard (as a client does when the capability comes), and the window focused for it."""
        if self.keyboard is not None:
            self.conn.send(self.keyboard, 0)  # wl_keyboard.release
            self.conn.take(self.keyboard)
        self.keyboard = self.conn.create("wl_keyboard", self.seat, 1)
        if self.window is None:
            self.window = Toplevel(self.conn, "input hot-plug")
            self.window.commit()
            self.window.map(200, 150)
        surface = self.window.surface
        self.conn.dispatch_until(lambda e: e.obj == self.keyboard and e.opcode == 1 and e.args("uo")[1] == surface,
                                 60)
        check(True, "the window has keyboard focus (wl_keyboard.enter)")

    def keys(self, count, timeout=30):
        """The next `count` wl_keyboard.key events as (key, state)."""
        keyboard = self.keyboard
        self.conn.answer_pings(self.window.wm_base)
        try:
            self.conn.dispatch_until(lambda e: len([k for k in self.conn.events if k.obj == keyboard and
                                                    k.opcode == 3]) >= count, timeout)
        except ProtocolError:
            pass
        return [tuple(e.args("uuuu")[2:]) for e in self.conn.take(keyboard, 3)]


def tap_reaches(watch, keyboard, what):
    """Taps KEY_A on the uinput keyboard and checks the focused client gets it pressed, then released."""
    watch.take_keyboard()
    keyboard.tap(uinput.KEY_A)
    keys = watch.keys(2)
    check(keys == [(uinput.KEY_A, 1), (uinput.KEY_A, 0)], f"{what} ({keys})")


def main():
    if not Path("/dev/uinput").exists():
        skip("the guest has no /dev/uinput (the uinput module did not load)")
    if start_udevd() is None:
        skip("no systemd-udevd in the host root (install the udev package): libinput's udev backend needs it")
    # Devices from before udevd started (the VM's PS/2 keyboard and mouse) are not in udev's database, so libinput
    # leaves them out: the seat starts empty and every device it gains is one this test plugged in.
    # wlroots refuses to start libinput with no device unless told that is expected.
    kiln = KilnOnVt(extra_env={"WLR_LIBINPUT_NO_DEVICES": "1"})
    keyboard = pointer = None
    try:
        conn = Connection(ENV, timeout=60)  # TCG under load: kiln can be seconds behind
        watch = SeatWatch(conn)
        watch.wait_caps(0, "kiln started with no input device")

        keyboard = uinput.keyboard()
        watch.wait_caps(KEYBOARD, "a uinput keyboard plugged in after kiln started")
        tap_reaches(watch, keyboard, "KEY_A typed on the uinput keyboard reaches the focused client, pressed then "
                                     "released")

        pointer = uinput.pointer()
        watch.wait_caps(POINTER | KEYBOARD, "a uinput mouse plugged in too")

        # Away on another VT kiln has no input devices (seatd revoked them); back, libinput opens them again.
        check(active_vt() == "tty1", "kiln is on VT 1")
        chvt(2)
        watch.wait_caps(0, "switched to VT 2")
        chvt(1)
        watch.wait_caps(POINTER | KEYBOARD, "back on VT 1")
        tap_reaches(watch, keyboard, "after the switch back keys arrive again")

        keyboard.destroy()
        keyboard = None
        watch.wait_caps(POINTER, "the uinput keyboard unplugged")

        # Every device gone while away: kiln comes back to an empty seat that still takes devices plugged in.
        chvt(2)
        watch.wait_caps(0, "switched to VT 2 again")
        pointer.destroy()
        pointer = None
        chvt(1)
        kiln.wait_log("kiln: session active again", 2)
        kiln.wait_log("kiln: no input device after the VT switch")
        check(True, "back on VT 1 with the mouse unplugged while away, kiln waits for devices")
        keyboard = uinput.keyboard("kiln-vm keyboard 2")
        watch.wait_caps(KEYBOARD, "a keyboard plugged in after that")
        tap_reaches(watch, keyboard, "and its keys arrive")
        keyboard.destroy()
        keyboard = None
        watch.wait_caps(0, "the keyboard unplugged")
        check(kiln.running(), "kiln is still running")
        conn.close()
        stats = kiln.stop()
        check(stats["session"]["input_reopens"] == 2,
              f"kiln opened libinput afresh on each return ({stats['session']})")
    finally:
        for device in (keyboard, pointer):
            if device:
                device.destroy()
        kiln.kill()
        print(kiln.log()[-3000:])


run_test(main)
