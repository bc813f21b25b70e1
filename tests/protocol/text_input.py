#!/usr/bin/env python3
"""text-input-v3 and input-method-v2 relayed by kiln: a focused window enabling its text input activates the input
method, which hears its surrounding text and content type; the input method's commit string ("你好"), preedit with
cursor and deletion reach the window, each closed by done; its popup sits under the window's text cursor; its keyboard
grab hears keys first and what it types back through its virtual keyboard reaches the window; focus moving to another
window deactivates it; a second input method is unavailable; a text input without focus activates nothing; the input
method going away while active leaves the window usable (keys arrive) and a new one takes over at once;
text inputs are entered and left with the keyboard focus before any input method runs, and one that binds later is
activated by the focused, enabled text input;
[security] restrict=input-method hides the global from clients kiln did not start."""
import queue
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, client_binary, rgb, run_test  # noqa: E402
from wayland_wire import Connection  # noqa: E402

KEY_A, KEY_B = 30, 48  # evdev codes; the input method types back key + 18: a becomes b
WINDOW_A, WINDOW_B, POPUP = "3366cc", "33cc66", "ff00ff"


class LoggedClient:
    """A test client whose stdout lines (after the timestamp) are collected, and whose stdin takes commands."""

    def __init__(self, kiln, name, *args, argv=None, env=None):
        self.kiln = kiln
        self.name = name
        self.proc = kiln.spawn(argv or [client_binary(name), *args], env=env, stdin=subprocess.PIPE)
        self.lines = []
        self._queue = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            text = raw.decode("utf-8", errors="replace").rstrip("\n")
            # The test clients stamp each line with a time; other programs' lines are taken whole.
            stamp, _, rest = text.partition(" ")
            self._queue.put(rest if stamp.replace(".", "", 1).isdigit() else text)

    def _drain(self):
        while True:
            try:
                self.lines.append(self._queue.get_nowait())
            except queue.Empty:
                return

    def wait(self, line, since=0):
        """Waits until `line` is logged (at or after index `since`); returns its index."""
        def seen():
            self._drain()
            return line in self.lines[since:]
        self.kiln.wait_for(seen, f"{self.name} to log '{line}' (has {self.lines[since:]})", interval=0.02)
        return self.lines.index(line, since)

    def command(self, text):
        """Sends a command and waits for its "ok"; returns the index of the ok line."""
        mark = len(self.lines)
        self.proc.stdin.write((text + "\n").encode())
        self.proc.stdin.flush()
        return self.wait(f"ok {text}", mark)

    def mark(self):
        self._drain()
        return len(self.lines)

    def since(self, mark):
        self._drain()
        return self.lines[mark:]

    def quit(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


class VirtualKeyboard:
    """Another keyboard (zwp_virtual_keyboard_v1 from a client of its own), as a person typing would send keys."""

    def __init__(self, kiln):
        self.conn = Connection(kiln.client_env)
        seat = self.conn.bind("wl_seat", 5)
        keyboard = self.conn.create("wl_keyboard", seat, 1)
        keymap = self.conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 0)
        _, size = keymap.args("uu")
        manager = self.conn.bind("zwp_virtual_keyboard_manager_v1", 1)
        self.obj = self.conn.new_id("zwp_virtual_keyboard_v1")
        self.conn.send(manager, 0, ("o", seat), ("n", self.obj))
        self.conn.send(self.obj, 0, ("u", 1), ("u", size), fds=[keymap.fds[0]])
        self.time = 0

    def key(self, key, state):
        self.time += 10
        self.conn.send(self.obj, 1, ("u", self.time), ("u", key), ("u", state))
        self.conn.roundtrip()

    def tap(self, key):
        self.key(key, 1)
        self.key(key, 0)

    def close(self):
        self.conn.close()


def relay(kiln):
    im = LoggedClient(kiln, "kiln-input-method-client")
    im.wait("ready")
    check("unavailable" not in im.since(0), "the first input method is available")

    a = LoggedClient(kiln, "kiln-text-input-client", "--color", WINDOW_A)
    a.wait("keyboard_enter")
    a.wait("enter")
    check(True, "the focused window's text input is entered while an input method runs")

    mark = im.mark()
    a.command("enable hello 5 20 30 2 16")
    im.wait("done", mark)
    got = im.since(mark)
    check(got[:2] == ["activate", "surrounding hello 5 5"] and "content_type 0 0" in got,
          f"enabling the focused text input activates the input method with its surrounding text ({got})")

    mark = a.mark()
    im.command("commit 你好")
    a.wait("done 1", mark)
    got = a.since(mark)
    check(got[:2] == ["commit_string 你好", "done 1"], f"commit_string 你好 reaches the window, then done ({got})")

    mark = a.mark()
    im.command("preedit にほん 3 6")
    a.wait("done 1", mark)
    check(a.since(mark)[:2] == ["preedit にほん 3 6", "done 1"],
          f"the preedit string with its cursor reaches the window ({a.since(mark)})")

    mark = a.mark()
    im.command("delete 2 1")
    a.wait("done 1", mark)
    check(a.since(mark)[:2] == ["delete 2 1", "done 1"], f"delete_surrounding_text reaches the window ({a.since(mark)})")

    mark = im.mark()
    a.command("surrounding hello你好 11")
    im.wait("done", mark)
    check("surrounding hello你好 11 11" in im.since(mark), "a new surrounding text reaches the input method")

    # The popup (the candidate list) goes under the cursor rectangle (20,30 2x16) of the window.
    mark = im.mark()
    im.command(f"popup 40 24 {POPUP}")
    im.wait("popup_rectangle 0 -16 2 16", mark)
    check(True, "the popup is told where the text cursor is, relative to itself")
    window = kiln.wait_for(lambda: kiln.screenshot().bounding_box(rgb(WINDOW_A)), "window A on screen")
    shot = kiln.wait_for(lambda: (s := kiln.screenshot()).bounding_box(rgb(POPUP)) and s, "the popup on screen")
    popup = shot.bounding_box(rgb(POPUP))
    check(popup == (window[0] + 20, window[1] + 46, window[0] + 60, window[1] + 70),
          f"the popup is drawn under the text cursor (window at {window[:2]}, popup {popup})")

    # A text cursor in the bottom-right corner of the 640x480 output (at 610,460): the popup goes above the cursor
    # and left of it, and is told so.
    mark = im.mark()
    a.command(f"cursor {610 - window[0]} {460 - window[1]} 2 16")
    im.wait("popup_rectangle 10 24 2 16", mark)
    shot = kiln.wait_for(lambda: (s := kiln.screenshot()).bounding_box(rgb(POPUP)) == (600, 436, 640, 460) and s,
                         "the popup to move into the output's corner")
    check(True, "near the output's edges the popup goes above the text cursor and stays on the output")

    # The keyboard grab: keys go to the input method first; it types a key back as another (a -> b).
    # A key held down when the grab begins is released to the window that saw it pressed.
    keys = VirtualKeyboard(kiln)
    mark_im, mark_a = im.mark(), a.mark()
    keys.key(KEY_A, 1)
    a.wait(f"key {KEY_A} 1", mark_a)
    im.command("grab 18")
    im.wait("grab_keymap", mark_im)
    keys.key(KEY_A, 0)
    a.wait(f"key {KEY_A} 0", mark_a)
    check(not any(line.startswith("grab_key ") for line in im.since(mark_im)),
          f"a key held from before the grab is released to the window, not the input method ({im.since(mark_im)})")
    mark_a = a.mark()
    keys.tap(KEY_A)
    im.wait(f"grab_key {KEY_A} 1", mark_im)
    a.wait(f"key {KEY_B} 0", mark_a)
    got = [line for line in a.since(mark_a) if line.startswith("key ")]
    check(got == [f"key {KEY_B} 1", f"key {KEY_B} 0"],
          f"a grabbed key reaches the window only as the input method typed it back ({got})")
    return im, a, keys


def focus_and_errors(kiln, im, a, keys):
    mark_im, mark_a = im.mark(), a.mark()
    b = LoggedClient(kiln, "kiln-text-input-client", "--color", WINDOW_B)
    b.wait("keyboard_enter")
    b.wait("enter")
    a.wait("leave", mark_a)
    im.wait("deactivate", mark_im)
    check(True, "focus moving to another window: the first text input leaves and the input method deactivates")

    second = LoggedClient(kiln, "kiln-input-method-client")
    second.wait("unavailable")
    check(True, "a second input method is unavailable")

    # Window A has no focus now: its text input's requests (a fresh enable too, after the disable a client sends
    # on leave) activate nothing; B's enable then does, with B's text.
    a.command("disable")
    mark_im = im.mark()
    a.command("enable unfocused 3 0 0 1 1")
    a.command("cursor 1 1 1 1")
    a.command("surrounding unfocused 1")
    b.command("enable world 2 5 5 2 10")
    im.wait("done", mark_im)
    got = im.since(mark_im)
    check(got.count("activate") == 1 and got.index("activate") < got.index("surrounding world 2 2") and
          not any("unfocused" in line for line in got),
          f"a text input without focus is harmless: only the focused one activates the input method ({got})")
    check(not any(line.startswith(("preedit", "commit_string", "enter")) for line in a.since(mark_a)),
          f"the unfocused window hears nothing ({a.since(mark_a)})")

    # The input method goes away while active: B keeps its text input's focus and reads its keys itself again.
    mark_b = b.mark()
    im.quit()
    keys.tap(KEY_A)
    b.wait(f"key {KEY_A} 1", mark_b)
    check("leave" not in b.since(mark_b), f"the input method quitting while active leaves the window its keys, "
          f"its text input still entered ({b.since(mark_b)})")

    third = LoggedClient(kiln, "kiln-input-method-client")
    third.wait("ready")
    third.wait("done")
    got = third.since(0)
    check("activate" in got and "surrounding world 2 2" in got and
          got.index("activate") < got.index("surrounding world 2 2") < got.index("done"),
          f"a new input method is activated at once by the still-enabled window ({got})")
    mark_im = third.mark()
    b.command("surrounding again 5")
    third.wait("done", mark_im)
    check("surrounding again 5 5" in third.since(mark_im), f"and hears its next state ({third.since(mark_im)})")

    # The application dies with its text input active: the input method is deactivated, nothing dangles.
    mark_im = third.mark()
    b.proc.kill()
    third.wait("deactivate", mark_im)
    check(True, "a window killed with its text input active deactivates the input method")
    c = LoggedClient(kiln, "kiln-text-input-client")
    c.wait("enter")
    c.command("enable back 4 1 1 1 1")
    third.wait("surrounding back 4 4", mark_im)
    check(third.since(mark_im).count("activate") == 1, "the next window with focus activates it again")
    check(kiln.alive(), "kiln is still running")


def input_method_later(kiln):
    """Text-input enter and leave follow the keyboard focus before any input method runs; an input method bound
    later is activated at once by the focused window's enabled text input, each state closed by done; the window's
    disable, and its text input's destruction, deactivate it, each followed by done."""
    a = LoggedClient(kiln, "kiln-text-input-client", "--color", WINDOW_A)
    a.wait("keyboard_enter")
    a.wait("enter")
    check(True, "with no input method running, the focused window's text input is entered")
    a.command("enable early 5 20 30 2 16")
    b = LoggedClient(kiln, "kiln-text-input-client", "--color", WINDOW_B)
    b.wait("enter")
    a.wait("leave")
    check(True, "focus moving to another window: the first text input leaves, the second enters (no input method)")
    b.command("enable later 5 1 1 1 1")

    mark_b = b.mark()
    im = LoggedClient(kiln, "kiln-input-method-client")
    im.wait("ready")
    im.wait("done")
    got = im.since(0)
    check(got.count("activate") == 1 and got.index("activate") < got.index("surrounding later 5 5") < got.index("done")
          and not any("early" in line for line in got),
          f"an input method bound after the focus is activated by the focused, enabled text input ({got})")
    check("leave" not in b.since(mark_b) and "enter" not in b.since(mark_b),
          f"the focused window's text input stays entered ({b.since(mark_b)})")

    mark_im = im.mark()
    b.command("disable")
    im.wait("done", mark_im)
    check(im.since(mark_im)[:2] == ["deactivate", "done"], f"disable: deactivate, then done ({im.since(mark_im)})")
    mark_im = im.mark()
    b.command("enable again 5 1 1 1 1")
    im.wait("done", mark_im)
    check(im.since(mark_im)[0] == "activate", f"enabled again: activate ({im.since(mark_im)})")
    mark_im = im.mark()
    b.proc.kill()
    im.wait("done", mark_im)
    check(im.since(mark_im)[:2] == ["deactivate", "done"],
          f"the text input destroyed with its client: deactivate, then done ({im.since(mark_im)})")
    im.quit()
    a.quit()


def restricted():
    with tempfile.TemporaryDirectory(prefix="kiln-text-input-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text("[security]\nrestrict=input-method\n")
        started = Path(tmp) / "started.log"
        # An input method kiln starts itself (fcitx5 in [startup]) still gets the global.
        # Its output goes to kiln's log, which the harness scans for sanitizer reports: under ASan a test client that
        # exits at end of input without freeing its proxies is no finding about kiln, so its leak check is off.
        command = (f"ASAN_OPTIONS=${{ASAN_OPTIONS}}:detect_leaks=0 {client_binary('kiln-input-method-client')} "
                   f"< /dev/null > {started}.part; mv {started}.part {started}")
        with Kiln("--config", str(config), "-s", command) as kiln, Connection(kiln.client_env) as conn:
            check("zwp_input_method_manager_v2" not in conn.globals and "zwp_text_input_manager_v3" in conn.globals,
                  "[security] restrict=input-method hides the input-method global (text-input stays)")
            kiln.wait_for(started.exists, "the started input method to finish")
            check(started.read_text().split()[1:] == ["ready"],
                  f"an input method kiln started binds it all the same ({started.read_text().strip()})")
    with Kiln() as kiln, Connection(kiln.client_env) as conn:
        check("zwp_input_method_manager_v2" in conn.globals, "without it, input-method is offered")


def main():
    with Kiln() as kiln:
        input_method_later(kiln)
    with Kiln() as kiln:
        im, a, keys = relay(kiln)
        focus_and_errors(kiln, im, a, keys)
        keys.close()
    restricted()


if __name__ == "__main__":
    run_test(main)
