#!/usr/bin/env python3
"""Runs inside the VM: kiln on vkms under seatd on VT 1 with two clients drawing; `chvt 2` takes the VT away (kiln
lets go of DRM master, its clients' frame callbacks stop, it draws nothing it cannot show) and `chvt 1` gives it
back (master taken again, frame callbacks and presentation resume, both clients still connected and on screen)."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from frame_stamp import FrameStamp, wait_frames  # noqa: E402
from kiln_harness import check, client_binary, rgb, run_test  # noqa: E402
from vt_session import (ENV, KD_GRAPHICS, KD_TEXT, KB_MODES, KilnOnVt, active_vt, chvt, drm_master_free,  # noqa: E402
                        screenshot, tty_modes, vkms_card)
from wayland_wire import Connection, ProtocolError, Toplevel, shm_buffer  # noqa: E402

DEMO_COLOUR = "cc3366"
WIRE_COLOUR = 0xff33aa66


class FramedWindow:
    """A wire-protocol toplevel that commits a frame on demand and reports its frame callback and presentation."""

    def __init__(self, conn):
        self.conn = conn
        self.window = Toplevel(conn, "vt switch")
        self.conn.answer_pings(self.window.wm_base)
        self.window.commit()
        self.window.map(160, 120, WIRE_COLOUR)
        self.buffer = shm_buffer(conn, 160, 120, WIRE_COLOUR)
        self.presentation = conn.bind("wp_presentation", 1)
        self.callback = None
        self.feedback = None

    def commit_frame(self):
        """Damages the window and asks for a frame callback and presentation feedback of the commit."""
        surface = self.window.surface
        self.conn.send(surface, 1, ("o", self.buffer), ("i", 0), ("i", 0))          # attach
        self.conn.send(surface, 2, ("i", 0), ("i", 0), ("i", 160), ("i", 120))       # damage
        self.callback = self.conn.create("wl_callback", surface, 3)                  # frame
        self.feedback = self.conn.new_id("wp_presentation_feedback")
        self.conn.send(self.presentation, 1, ("o", surface), ("n", self.feedback))  # feedback(surface, new id)
        self.window.commit()

    def frame_done(self, timeout):
        """Whether the frame callback came within `timeout` seconds."""
        callback = self.callback
        try:
            self.conn.dispatch_until(lambda e: e.obj == callback, timeout)
            return True
        except ProtocolError as error:
            if "did not come" not in str(error):
                raise
            return False

    def presented(self, timeout):
        """The feedback's outcome: 'presented', 'discarded', or None (not yet)."""
        feedback = self.feedback
        try:
            event = self.conn.dispatch_until(lambda e: e.obj == feedback and e.opcode in (1, 2), timeout)
        except ProtocolError as error:
            if "did not come" not in str(error):
                raise
            return None
        return "presented" if event.opcode == 1 else "discarded"


def wait_for_pixels(colour, what, minimum=2000, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if screenshot().count(colour, tolerance=6, step=4) * 16 >= minimum:
            return
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what} on screen")


def wait_for_motion(stamp, what, timeout=30):
    """Waits until kiln-demo-shm's frame stamp on screen advances: its new frames reach the screen (screenshots that
    merely differ could alias with its sliding square, whose picture repeats every 24 frames)."""
    wait_frames(screenshot, stamp, frames=3, timeout=timeout, what=what)


def away_and_back(kiln, window, card, round_number):
    """chvt 2, a commit while away that must wait, chvt 1, and the commit's frame callback once back."""
    chvt(2)
    check(active_vt() == "tty2", "chvt 2: VT 2 is in front")
    kiln.wait_log("kiln: session paused", round_number)
    check(True, "kiln heard the session go (its log says so)")
    mode, kb = tty_modes("/dev/tty2")
    check(mode == KD_TEXT, f"VT 2 is a text console (KDGETMODE {mode}, keyboard {KB_MODES.get(kb)})")
    check(drm_master_free(card), "kiln let go of DRM master: another process can take it")

    window.commit_frame()
    # What must not happen can only be watched for a while: 3 s without the callback while away, against a
    # callback that comes once back.
    check(not window.frame_done(3), "while away, the wire client's frame callback does not come")
    check(kiln.running(), "kiln keeps running while away")

    chvt(1)
    check(active_vt() == "tty1", "chvt 1: VT 1 is in front again")
    kiln.wait_log("kiln: session active again", round_number)
    check(window.frame_done(30), "back on VT 1, the frame callback asked for while away comes")
    mode, kb = tty_modes("/dev/tty1")
    check(mode == KD_GRAPHICS and KB_MODES.get(kb) == "K_OFF", "kiln's VT is in graphics mode again, keyboard off")
    check(not drm_master_free(card), "kiln holds DRM master again")
    window.commit_frame()
    check(window.frame_done(30), "a new frame's callback comes")
    check(window.presented(30) == "presented", "and the frame is presented: kiln flips pages on vkms again")


def main():
    card = vkms_card()
    home = active_vt()
    check(home == "tty1", f"the guest starts on VT 1 ({home})")
    kiln = KilnOnVt(extra_env={"WLR_LIBINPUT_NO_DEVICES": "1"})
    demo = None
    try:
        mode, kb = tty_modes("/dev/tty1")
        check(mode == KD_GRAPHICS and KB_MODES.get(kb) == "K_OFF",
              f"kiln's VT is in graphics mode with the keyboard off (KDGETMODE {mode}, KDGKBMODE {KB_MODES.get(kb)})")
        check(not drm_master_free(card), f"kiln holds DRM master on {card}")

        demo = subprocess.Popen([client_binary("kiln-demo-shm"), "--color", DEMO_COLOUR, "--size", "240x160",
                                 "--frames", "1000000", "--stamp"], env=ENV, stdout=subprocess.DEVNULL,
                                stderr=open(kiln.log_path.with_name("demo.log"), "w"))
        wait_for_pixels(rgb(DEMO_COLOUR), "the animated kiln-demo-shm window")
        stamp = FrameStamp(screenshot(), rgb(DEMO_COLOUR), tolerance=6)
        conn = Connection(ENV, timeout=60)  # TCG under load: kiln can be seconds behind
        window = FramedWindow(conn)
        window.commit_frame()
        check(window.frame_done(30), "before the switch the wire client's frame callback comes")
        check(window.presented(30) == "presented", "and its frame is presented (a page flip on vkms)")

        print("-- round 1: a client animating while the VT goes away and comes back")
        away_and_back(kiln, window, card, 1)
        check(demo.poll() is None, "kiln-demo-shm is still connected")
        wait_for_motion(stamp, "kiln-demo-shm after the switch back")
        check(True, "kiln-demo-shm is drawing again")
        wait_for_pixels(rgb(DEMO_COLOUR), "kiln-demo-shm after the switch back")
        wait_for_pixels(rgb(f"{WIRE_COLOUR & 0xffffff:06x}"), "the wire client after the switch back")
        check(True, "both clients' pixels are on screen after the switch back")

        print("-- round 2: kiln idle when the VT goes away, a client commits while away")
        os.kill(demo.pid, signal.SIGSTOP)
        for _ in range(2):  # the demo's last commit drawn, then one frame with nothing else in flight
            window.commit_frame()
            check(window.frame_done(30) and window.presented(30) == "presented", "kiln is idle (frame presented)")
        away_and_back(kiln, window, card, 2)
        os.kill(demo.pid, signal.SIGCONT)
        wait_for_motion(stamp, "kiln-demo-shm after SIGCONT")
        check(demo.poll() is None, "kiln-demo-shm is still connected and drawing")
        conn.close()

        demo.terminate()
        demo.wait(30)
        stats = kiln.stop()
        session = stats["session"]
        print(f"stats: session {session}, frames {stats['frames']['rendered']}")
        check(session["deactivations"] == 2 and session["activations"] == 2,
              "kiln counted two pauses and two returns of the session")
        # Every commit fails while away: a frame drawn then is wasted, and retrying refused commits spins.
        check(session["frames_while_inactive"] == 0,
              f"kiln drew {session['frames_while_inactive']} frames while away (none: nothing can be shown)")
    finally:
        if demo and demo.poll() is None:
            demo.kill()
        kiln.kill()
        print(kiln.log()[-3000:])


run_test(main)
