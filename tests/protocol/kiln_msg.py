#!/usr/bin/env python3
"""`kiln msg` against a live kiln with two demo windows: its socket is $XDG_RUNTIME_DIR/kiln-<display>.sock, mode
0600, named to startup commands in KILN_SOCKET; outputs, workspaces and windows come back as JSON of the expected
shape and values; `workspace 2` shows workspace 2's window and hides workspace 1's (screenshots); focus by id shows
the window's workspace and focuses it; move by id sends a window to another workspace; close by id ends the demo
client (it exits); reload takes a changed kiln.ini (the background's pixels change) and refuses a missing one with a
message; subscribe prints a workspace event for a switch made by a key binding (Super+2 through a virtual keyboard)
and window events (new, focus, close). Bad input (unknown command, wrong types, unknown ids, unknown keys, nested
values, not JSON, a 1 MiB line, a client that never reads its replies, a client of another uid) is refused with a
message, changes nothing (the listings are the same before and after), and kiln still answers."""
import json
import os
import select
import socket
import stat as stat_module
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from foreign_toplevel_list import Watcher  # noqa: E402
from kiln_harness import Kiln, check, client_binary, kiln_binary, need, rgb, run_test, skip  # noqa: E402
from virtual_input import SUPER, VirtualKeyboard  # noqa: E402
from wayland_wire import Connection  # noqa: E402

BLUE, RED = "3366cc", "cc3333"


def msg(kiln, *args, env=None):
    """`kiln msg ARGS`: (exit status, stdout, stderr)."""
    result = subprocess.run([kiln_binary(), "msg", *args], env=dict(kiln.client_env, **(env or {})),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=20)
    return result.returncode, result.stdout, result.stderr


def ok(kiln, *args):
    """`kiln msg ARGS` that must succeed: its reply, parsed and checked to be one JSON object with ok true."""
    status, out, err = msg(kiln, *args)
    check(status == 0, f"kiln msg {' '.join(args)} exits 0 (got {status}: {err.strip()})")
    lines = out.splitlines()
    check(len(lines) == 1, f"kiln msg {' '.join(args)} prints one line ({len(lines)})")
    reply = json.loads(lines[0])
    check(reply.get("ok") is True, f"its reply says ok: {reply}")
    return reply


def refused(kiln, args, wanted, what):
    status, out, err = msg(kiln, *args)
    check(status != 0 and wanted in err and out == "",
          f"{what}: refused, exit {status}, message {err.strip()!r} (wanted {wanted!r})")


def validate_window(window):
    kinds = {"id": int, "title": str, "app_id": str, "identifier": str, "workspace": str, "output": str, "x": int, "y": int,
             "width": int, "height": int, "focused": bool, "visible": bool, "maximized": bool, "fullscreen": bool,
             "minimized": bool}
    for key, kind in kinds.items():
        check(isinstance(window.get(key), kind), f"window field {key} is {kind.__name__}: {window}")


def windows(kiln):
    listed = ok(kiln, "windows")["windows"]
    for window in listed:
        validate_window(window)
    return listed


def by_title(listed, color):
    return [w for w in listed if w["width"] == SIZES[color][0]]


SIZES = {BLUE: (240, 180), RED: (160, 120)}


def spawn_demo(kiln, color):
    w, h = SIZES[color]
    return kiln.spawn([client_binary("kiln-demo-shm"), "--size", f"{w}x{h}", "--color", color])


def on_screen(kiln, color):
    return kiln.screenshot().count(rgb(color), tolerance=4, step=2) > 1000


def wait_shown(kiln, color, shown, what):
    kiln.wait_for(lambda: on_screen(kiln, color) == shown, what)
    check(True, what)


class Events:
    """`kiln msg subscribe` running, its lines read as they come."""

    def __init__(self, kiln):
        self.proc = kiln.spawn([kiln_binary(), "msg", "subscribe"])
        self.seen = []
        self.buffer = b""
        first = self.line(10)
        check(first is not None and first.get("ok") is True and "workspace" in first.get("events", []),
              f"kiln msg subscribe: its first line says ok and names the events ({first})")

    def line(self, timeout):
        """The next line, read from the pipe's fd (a buffered readline would hide lines from select)."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.proc.stdout.fileno()], [], [], max(0, left))
            if not ready:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(raw)

    def wait(self, predicate, what, timeout=10):
        """The first event so far or to come that `predicate` accepts (kiln may send a switch's focus event before
        or after its workspace event)."""
        deadline = time.monotonic() + timeout
        while True:
            for event in self.seen:
                if predicate(event):
                    check(True, f"{what}: {event}")
                    return event
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: not among the events seen: {self.seen}")
            event = self.line(max(0.1, deadline - time.monotonic()))
            if event is not None:
                self.seen.append(event)


def main():
    need("grim")
    with tempfile.TemporaryDirectory(prefix="kiln-msg-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text("[background]\ncolor=0x000000\n")
        seen_env = Path(tmp) / "startup-env"
        # background=None: kiln.ini sets it (black), and the reload below must be free to change it.
        with Kiln("--config", str(config), "-s", f"echo \"$KILN_SOCKET\" > {seen_env}", background=None) as kiln:
            path = Path(kiln.runtime) / f"kiln-{kiln.socket}.sock"
            kiln.wait_for(path.exists, "the control socket (made a moment after the Wayland socket)")
            mode = stat_module.S_IMODE(os.stat(path).st_mode)
            check(stat_module.S_ISSOCK(os.stat(path).st_mode) and mode == 0o600,
                  f"the control socket {path.name} is a socket of mode {mode:o}")
            kiln.wait_for(lambda: seen_env.exists() and seen_env.read_text().strip(), "the startup command's env")
            check(seen_env.read_text().strip() == str(path), f"a startup command sees KILN_SOCKET={path}")
            check(ok(kiln, "version")["version"], "version answers")

            outputs = ok(kiln, "outputs")["outputs"]
            check(len(outputs) == 1 and outputs[0]["name"] == "HEADLESS-1" and
                  (outputs[0]["width"], outputs[0]["height"]) == (640, 480) and outputs[0]["workspace"] == "1" and
                  outputs[0]["focused"] is True and outputs[0]["scale"] == 1,
                  f"outputs: HEADLESS-1, 640x480, showing workspace 1 ({outputs})")

            blue = spawn_demo(kiln, BLUE)
            wait_shown(kiln, BLUE, True, "the blue demo window is on screen")
            kiln.wait_for(lambda: len(windows(kiln)) == 1, "the blue window listed")
            [b] = windows(kiln)
            check(b["app_id"] == "kiln-demo" and b["title"] == "kiln-demo-shm" and b["workspace"] == "1" and
                  b["output"] == "HEADLESS-1" and b["focused"] and b["visible"] and
                  (b["width"], b["height"]) == SIZES[BLUE],
                  f"windows: the blue demo, app_id kiln-demo, on workspace 1, focused, 240x180 ({b})")

            # A switch by `kiln msg workspace 2`: workspace 1's window goes from the screen, workspace 2's shows.
            ok(kiln, "workspace", "2")
            wait_shown(kiln, BLUE, False, "kiln msg workspace 2: workspace 1's blue window leaves the screen")
            red = spawn_demo(kiln, RED)
            wait_shown(kiln, RED, True, "a window opened now (red) is on workspace 2, on screen")
            kiln.wait_for(lambda: len(windows(kiln)) == 2, "both windows listed")
            listed = {w["width"]: w for w in windows(kiln)}
            b, r = listed[SIZES[BLUE][0]], listed[SIZES[RED][0]]
            check(b["workspace"] == "1" and not b["visible"] and r["workspace"] == "2" and r["visible"] and
                  r["focused"] and b["id"] != r["id"],
                  f"windows: blue on hidden 1, red on shown 2 and focused ({b['id']}, {r['id']})")
            # "identifier" is the one ext-foreign-toplevel-list gives the window (kiln-portal matches by it).
            watcher = Watcher(kiln)
            watcher.wait(lambda h: len([x for x in watcher.handles.values() if "done" in x["events"]]) == 2,
                         "both windows in ext-foreign-toplevel-list")
            listed_ids = {w["identifier"] for w in windows(kiln)}
            seen_ids = {h["identifier"] for h in watcher.handles.values() if "closed" not in h["events"]}
            check(listed_ids == seen_ids and len(listed_ids) == 2,
                  f"windows: each identifier is the window's ext-foreign-toplevel-list one ({listed_ids}, {seen_ids})")
            watcher.conn.close()
            spaces = ok(kiln, "workspaces")["workspaces"]
            check([(s["name"], s["visible"], s["focused"], s["windows"]) for s in spaces] ==
                  [("1", False, False, 1), ("2", True, True, 1)], f"workspaces: 1 hidden, 2 shown ({spaces})")
            ok(kiln, "workspace", "1")
            wait_shown(kiln, RED, False, "kiln msg workspace 1: the red window leaves the screen")
            wait_shown(kiln, BLUE, True, "and the blue one is back")

            # focus by id shows the window's workspace; move by id sends it to another.
            ok(kiln, "focus", str(r["id"]))
            wait_shown(kiln, RED, True, "kiln msg focus <red>: its workspace 2 is shown")
            now = {w["id"]: w for w in windows(kiln)}
            check(now[r["id"]]["focused"] and not now[b["id"]]["focused"], "and the red window has focus")
            ok(kiln, "move", str(r["id"]), "3")
            wait_shown(kiln, RED, False, "kiln msg move <red> 3: it leaves the shown workspace 2")
            check({w["id"]: w["workspace"] for w in windows(kiln)} == {b["id"]: "1", r["id"]: "3"},
                  "windows: blue on 1, red on 3")
            ok(kiln, "workspace", "3")
            wait_shown(kiln, RED, True, "kiln msg workspace 3 shows it")

            # Bad input changes nothing and is answered with a message.
            before = (ok(kiln, "windows"), ok(kiln, "workspaces"), ok(kiln, "outputs"))
            refused(kiln, ["raw", '{"command":"explode"}'], 'unknown command "explode"', "an unknown command")
            refused(kiln, ["frobnicate"], 'unknown command "frobnicate"', "an unknown command (client side)")
            refused(kiln, ["focus", "blue"], '"id" must be an integer, not a string', "focus with a string id")
            refused(kiln, ["raw", '{"command":"focus","id":true}'], '"id" must be an integer, not a boolean',
                    "focus with a boolean id")
            refused(kiln, ["raw", '{"command":"workspace","name":2}'], '"name" must be a string, not an integer',
                    "workspace with a number for a name")
            refused(kiln, ["raw", '{"command":"focus"}'], '"focus" needs "id"', "focus without an id")
            refused(kiln, ["focus", "999999"], "no window with id 999999", "focus of an unknown id")
            refused(kiln, ["close", "-5"], "no window with id -5", "close of an unknown id")
            refused(kiln, ["move", str(b["id"]), "4", "NOWHERE-9"], 'no output named "NOWHERE-9"',
                    "move to an unknown output")
            refused(kiln, ["workspace", "x" * 65], "1 to 64 bytes", "a workspace name too long")
            refused(kiln, ["raw", '{"command":"windows","all":true}'], '"windows" takes no "all"', "an unknown key")
            refused(kiln, ["raw", '{"command":"move","id":1,"workspace":["2"]}'], "object or array",
                    "a nested value")
            refused(kiln, ["raw", '{"command":"windows","command":"outputs"}'], "given twice", "a duplicate key")
            refused(kiln, ["raw", "windows please"], "not a valid request", "not JSON")
            refused(kiln, ["raw", '{"command":"windows"} x'], "text after", "text after the object")
            refused(kiln, ["raw", '{"id":3}'], 'needs "command"', "no command")
            after = (ok(kiln, "windows"), ok(kiln, "workspaces"), ok(kiln, "outputs"))
            check(after == before, "windows, workspaces and outputs are the same after the bad requests")

            # A 1 MiB line: an error, that client disconnected, kiln unharmed.
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            client.connect(str(path))
            client.settimeout(10)
            try:
                client.sendall(b"x" * (1 << 20) + b"\n")
            except (BrokenPipeError, ConnectionResetError):
                pass  # kiln stopped reading at its limit and closed: the error line waits in our buffer
            data = b""
            while True:
                try:
                    chunk = client.recv(65536)
                except ConnectionResetError:
                    break  # kiln closed with our line unread: the reset comes after what it wrote
                if not chunk:
                    break
                data += chunk
            client.close()
            reply = json.loads(data.decode().splitlines()[0])
            check(reply["ok"] is False and "longer than 65536 bytes" in reply["error"],
                  f"a 1 MiB line: an error reply ({reply['error']!r}), then the connection closed")
            check(ok(kiln, "windows") == before[0], "kiln still answers, the same")

            # A client that asks and asks and never reads its replies is dropped, not waited for.
            greedy = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            greedy.connect(str(path))
            greedy.setblocking(False)
            request = b'{"command":"windows"}\n' * 64
            dropped = False
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not dropped:
                try:
                    greedy.send(request)
                except BlockingIOError:
                    time.sleep(0.01)
                except (BrokenPipeError, ConnectionResetError):
                    dropped = True
            greedy.close()
            check(dropped, "a client that never reads its replies is disconnected")
            check("does not read its replies" in kiln.logs(), "and kiln's log says why")
            check(ok(kiln, "windows") == before[0], "kiln still answers, the same")

            # Events: a switch by a key binding, windows opening, taking focus and closing.
            events = Events(kiln)
            with Connection(kiln.client_env) as conn:
                seat = conn.bind("wl_seat", 5)
                keyboard = conn.create("wl_keyboard", seat, 1)
                keymap = conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 0)
                VirtualKeyboard(conn, seat, keymap).press(SUPER, "1")
            events.wait(lambda e: e.get("event") == "workspace" and e["change"] == "focus" and
                        e["workspace"] == "1" and e.get("old") == "3" and e["output"] == "HEADLESS-1",
                        "subscribe sees Super+1 (a key binding) switch from workspace 3 to 1")
            wait_shown(kiln, BLUE, True, "and the switch is on screen")
            events.wait(lambda e: e.get("event") == "window" and e["change"] == "focus" and
                        e["window"]["id"] == b["id"], "then the blue window's focus event")
            green = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "100x80", "--color", "20a040"])
            new = events.wait(lambda e: e.get("event") == "window" and e["change"] == "new",
                              "a new window's event")
            validate_window(new["window"])
            focused = events.wait(lambda e: e.get("event") == "window" and e["change"] == "focus" and
                                  e["window"]["id"] == new["window"]["id"], "its focus event")
            check(events.seen.index(focused) > events.seen.index(new) and focused["window"]["workspace"] == "1",
                  "after its new event, naming its workspace")
            ok(kiln, "close", str(new["window"]["id"]))
            events.wait(lambda e: e.get("event") == "window" and e["change"] == "close" and
                        e["window"]["id"] == new["window"]["id"] and e["window"]["workspace"] == "1",
                        "kiln msg close <id>: its close event, naming the workspace it left")
            green.wait(10)
            check(True, f"and the demo client, asked to close, exited ({green.returncode})")

            # reload: a changed kiln.ini is taken (the background's colour on screen), a missing one refused.
            check(kiln.screenshot().at(630, 470) == (0, 0, 0), "the background is black")
            config.write_text("[background]\ncolor=0x402010\n")
            ok(kiln, "reload")
            kiln.wait_for(lambda: kiln.screenshot().at(630, 470) == (0x40, 0x20, 0x10),
                          "kiln msg reload: the background takes kiln.ini's new colour")
            config.unlink()
            refused(kiln, ["reload"], "kiln.ini not reloaded", "reload while kiln.ini cannot be read")
            check(kiln.screenshot().at(630, 470) == (0x40, 0x20, 0x10), "and the running settings stay")

            reason = other_uid(kiln, path)
            check(blue.poll() is None and red.poll() is None, "the demo windows still run")
            status, _ = kiln.stop()
            check(status == 0, f"kiln exits 0 ({status})")
            check(not path.exists(), "and its control socket is gone")
    return reason


NOBODY_CLIENT = """
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("connect:", e.strerror); sys.exit(3)
try:
    s.sendall(b'{"command":"windows"}\\n')
except OSError:
    pass  # refused and closed before the request: the reply waits all the same
s.settimeout(10)
data = b""
while True:
    try:
        chunk = s.recv(4096)
    except ConnectionResetError:
        break
    if not chunk:
        break
    data += chunk
print(data.decode().strip())
"""


def other_uid(kiln, path):
    """A client of another uid: the socket's mode keeps it out; with the mode opened up, kiln refuses it itself."""
    if os.geteuid() != 0:
        return "not root: no other uid to run a client as"
    setpriv = subprocess.run(["sh", "-c", "command -v setpriv"], stdout=subprocess.PIPE, text=True).stdout.strip()
    if not setpriv:
        return "setpriv is not installed"
    as_nobody = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", sys.executable, "-c",
                 NOBODY_CLIENT, str(path)]
    runtime = Path(kiln.runtime)
    old_dir_mode = stat_module.S_IMODE(os.stat(runtime).st_mode)
    os.chmod(runtime, 0o711)  # the test's own runtime directory: nobody may reach the socket's name
    try:
        first = subprocess.run(as_nobody, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=20)
        check(first.returncode == 3 and "Permission denied" in first.stdout,
              f"a client of uid nobody cannot connect through mode 0600 ({first.stdout.strip()})")
        os.chmod(path, 0o666)  # as if the mode were wrong: the peer's uid is still checked
        second = subprocess.run(as_nobody, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                timeout=20)
        os.chmod(path, 0o600)
        try:
            reply = json.loads(second.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise AssertionError(f"the uid-nobody client printed no JSON reply: {second.stdout!r}")
        check(reply.get("ok") is False and "permission denied" in reply.get("error", "") and
              "uid 65534" in reply["error"],
              f"with the socket opened to all, kiln refuses the uid-nobody client itself: {reply}")
        check("refused a client of uid 65534" in kiln.logs(), "and logs it")
    finally:
        os.chmod(runtime, old_dir_mode)
    check(ok(kiln, "version")["ok"], "kiln still answers its own user")
    return None


def run():
    reason = main()
    if reason:
        skip(f"every other check passed; the other-uid check needs root and setpriv: {reason}")


run_test(run)
