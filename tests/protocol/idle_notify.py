#!/usr/bin/env python3
"""ext-idle-notify-v1 on headless kiln: swayidle 1.8 (which binds it in preference to KDE idle) runs its timeout
command through it, its resume command on a key, and an idle inhibitor holds it while an input-idle notification
(v2, which ignores inhibitors) still goes idle; then the notification objects' life as a wire client sees it, and the
version error. Keys come from a virtual keyboard with kiln's keymap, as wtype sends them."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from virtual_input import VirtualKeyboard  # noqa: E402
from wayland_wire import Connection, Toplevel, expect_protocol_error  # noqa: E402

NOTIFIER = "ext_idle_notifier_v1"
GET_IDLE, GET_INPUT_IDLE = 1, 2          # ext_idle_notifier_v1 requests (0: destroy)
IDLED, RESUMED = 0, 1                    # ext_idle_notification_v1 events (request 0: destroy)


class Client:
    """A wire client with a seat, a keyboard (for the virtual keyboard's keymap) and the notifier at `version`."""

    def __init__(self, env, version=2):
        self.conn = Connection(env)
        self.seat = self.conn.bind("wl_seat", 5)
        keyboard = self.conn.create("wl_keyboard", self.seat, 1)
        keymap = self.conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 0)
        self.keys = VirtualKeyboard(self.conn, self.seat, keymap)
        self.notifier = self.conn.bind(NOTIFIER, version)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.conn.close()
        return False

    def notification(self, timeout_ms, input_only=False):
        return self.conn.create("ext_idle_notification_v1", self.notifier, GET_INPUT_IDLE if input_only else GET_IDLE,
                                ("u", timeout_ms), ("o", self.seat))

    def events(self, notification):
        return [e.opcode for e in self.conn.events if e.obj == notification]

    def wait(self, notification, opcode, timeout=15):
        self.conn.dispatch_until(lambda e: e.obj == notification and e.opcode == opcode, timeout)

    def wait_sequence(self, notification, opcodes, timeout=15):
        """Waits until the notification's events so far are `opcodes`, in order."""
        self.conn.dispatch_until(lambda e: self.events(notification)[:len(opcodes)] == opcodes, timeout)
        check(self.events(notification) == opcodes, f"events {opcodes} and no more ({self.events(notification)})")

    def inhibit(self):
        """A mapped window with an idle inhibitor on its surface; returns (window, inhibitor)."""
        window = Toplevel(self.conn, "video")
        window.commit()
        window.map(64, 64)
        manager = self.conn.bind("zwp_idle_inhibit_manager_v1", 1)
        inhibitor = self.conn.create("zwp_idle_inhibitor_v1", manager, 1, ("o", window.surface))
        self.conn.roundtrip()
        return window, inhibitor


def wait_file(kiln, path, what, timeout=20):
    kiln.wait_for(path.exists, what, timeout=timeout, interval=0.05)


def swayidle(scratch):
    need("swayidle")
    idle_mark, resume_mark = Path(scratch) / "F", Path(scratch) / "G"
    log_path = Path(scratch) / "swayidle.log"
    with Kiln() as kiln, Client(kiln.client_env) as client, open(log_path, "w") as log:
        proc = subprocess.Popen(["swayidle", "-d", "timeout", "2", f"touch {idle_mark}", "resume", f"touch {resume_mark}"],
                                env=dict(kiln.client_env, WAYLAND_DEBUG="1"), stdout=log, stderr=subprocess.STDOUT)
        kiln.children.append(proc)

        def ext_lines(event):
            return [line for line in log_path.read_text(errors="replace").splitlines()
                    if f"ext_idle_notification_v1#" in line and f".{event}()" in line]

        wait_file(kiln, idle_mark, "swayidle's timeout command")
        text = log_path.read_text(errors="replace")
        check('bind(' in text and '"ext_idle_notifier_v1"' in text,
              "swayidle bound ext_idle_notifier_v1 (WAYLAND_DEBUG)")
        check(any("get_idle_notification(" in line for line in text.splitlines()),
              "swayidle asked ext_idle_notifier_v1 for a notification")
        check(len(ext_lines("idled")) == 1, "the idle time reached swayidle as ext_idle_notification_v1.idled, "
              "and 'touch F' ran")
        check("get_idle_timeout(" not in text, "swayidle did not ask KDE idle for a timeout")
        check(not resume_mark.exists(), "no resume before any input")

        client.keys.press(0, "a")
        wait_file(kiln, resume_mark, "swayidle's resume command after a key")
        check(len(ext_lines("resumed")) == 1, "a key reached swayidle as ext_idle_notification_v1.resumed")

        # An inhibitor holds swayidle's notification (made with get_idle_notification). The control: an
        # input-idle notification made after it with twice the timeout, which ignores inhibitors, goes idle; by
        # then swayidle's would have gone idle long before had the inhibitor not held it.
        idle_mark.unlink()
        resume_mark.unlink()
        window, inhibitor = client.inhibit()
        client.keys.press(0, "a")
        control = client.notification(4000, input_only=True)
        client.wait(control, IDLED)
        client.conn.roundtrip()
        time.sleep(0.2)  # swayidle's log is written by another process: let it catch up before counting
        check(len(ext_lines("idled")) == 1 and not idle_mark.exists(),
              "an idle inhibitor holds swayidle's notification while an input-idle one (4 s, made later) went idle")

        # The inhibitor goes: swayidle's timeout counts from then and its command runs again.
        client.conn.send(inhibitor, 0)
        client.conn.roundtrip()
        wait_file(kiln, idle_mark, "swayidle's timeout command once the inhibitor is gone")
        check(len(ext_lines("idled")) == 2, "without the inhibitor swayidle goes idle again (ext idled, twice in all)")
        check(kiln.alive(), "kiln is still running")


def lifecycle():
    with Kiln() as kiln, Client(kiln.client_env) as client:
        conn = client.conn
        check(conn.globals[NOTIFIER][1] == 2, f"{NOTIFIER} is offered at version 2 ({conn.globals[NOTIFIER][1]})")

        # Not idle at first, and no resumed before an idled (the spec makes that a compositor error).
        long_wait = client.notification(600000)
        client.keys.press(0, "a")
        conn.roundtrip()
        check(client.events(long_wait) == [], "activity before a notification went idle sends nothing")

        # A zero timeout goes idle as soon as the seat is inactive; a key resumes it, and it goes idle again.
        zero = client.notification(0)
        client.wait(zero, IDLED)
        client.keys.press(0, "a")
        client.wait_sequence(zero, [IDLED, RESUMED, IDLED])
        check(True, "a zero-timeout notification goes idle at once, resumes on a key and goes idle again")
        conn.send(zero, 0)  # destroy
        conn.roundtrip()

        # Each notification times out on its own: the shorter one first, the longer one after it.
        short, longer = client.notification(300), client.notification(3000)
        client.wait(short, IDLED)
        check(client.events(longer) == [], "a 300 ms notification goes idle before a 3000 ms one")
        client.wait(longer, IDLED)
        check(client.events(short) == [IDLED], "each notification goes idle once (no second idled without input)")

        # The notifier's destroy leaves its notifications working; a destroyed notification hears nothing more.
        conn.take(short)
        conn.send(client.notifier, 0)
        conn.send(longer, 0)
        conn.roundtrip()
        client.keys.press(0, "a")
        client.wait_sequence(short, [RESUMED, IDLED])
        check(True, "a notification outlives its notifier: a key resumes it and it goes idle again")

        # Input-idle ignores the inhibitor, idle does not, from one notifier bound again.
        client.notifier = conn.bind(NOTIFIER, 2)
        _, inhibitor = client.inhibit()
        held, input_only = client.notification(300), client.notification(300, input_only=True)
        client.wait(input_only, IDLED)
        later = client.notification(900, input_only=True)  # made after `held`: its idled comes later than held's would
        client.wait(later, IDLED)
        check(client.events(held) == [], "with an inhibitor, get_idle_notification's object stays active while "
              "get_input_idle_notification's go idle")
        conn.send(inhibitor, 0)
        client.wait(held, IDLED)
        check(True, "once the inhibitor is destroyed the held notification goes idle")

    # Version 1: get_input_idle_notification does not exist there.
    with Kiln() as kiln, Client(kiln.client_env, version=1) as client:
        client.notification(1000, input_only=True)
        error = expect_protocol_error(client.conn)
        check("invalid method" in str(error) and NOTIFIER in str(error),
              f"get_input_idle_notification on a version 1 notifier is a protocol error ({error})")
        check(kiln.alive(), "kiln survives the client's error")


def main():
    scratch = tempfile.mkdtemp(prefix="kiln-idle-")
    try:
        lifecycle()
        swayidle(scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


run_test(main)
