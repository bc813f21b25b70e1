#!/usr/bin/env python3
"""kiln's i3/sway IPC socket against a live kiln: $XDG_RUNTIME_DIR/kiln-<display>-sway.sock, mode 0600, named to
startup commands in SWAYSOCK and I3SOCK; every message kiln answers (GET_VERSION, GET_OUTPUTS, GET_WORKSPACES with
the fields waybar's sway/workspaces reads, GET_TREE root -> outputs -> workspaces -> windows with kiln msg's window
ids, GET_BAR_CONFIG, GET_BINDING_MODES, GET_BINDING_STATE, GET_MARKS, GET_SEATS) has sway's JSON shape; RUN_COMMAND
switches workspaces (by name, by number, in waybar's click form), moves, focuses and kills windows by con_id, and
refuses unknown commands as sway does; SUBSCRIBE answers sway's exact text and then sees workspace events for
switches made through `kiln msg` and Super+1 (a virtual keyboard), and window new/focus/close events. swaymsg, the
real client, reads the same. Bad input (bad magic, a 2 MiB length, an unknown type, a bad subscription, a client that
never reads its replies, a client of another uid) is refused for that client only, and kiln still answers."""
import json
import os
import shutil
import socket
import stat as stat_module
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, client_binary, kiln_binary, rgb, run_test, skip  # noqa: E402
from virtual_input import SUPER, VirtualKeyboard  # noqa: E402
from wayland_wire import Connection  # noqa: E402

MAGIC = b"i3-ipc"
RUN_COMMAND, GET_WORKSPACES, SUBSCRIBE, GET_OUTPUTS, GET_TREE, GET_MARKS, GET_BAR_CONFIG, GET_VERSION = range(8)
GET_BINDING_MODES, SEND_TICK, GET_BINDING_STATE, GET_SEATS = 8, 10, 12, 101
EVENT_WORKSPACE, EVENT_WINDOW = 0x80000000, 0x80000003
BLUE, RED = "3366cc", "cc3333"


class I3:
    """One i3-ipc connection: messages sent and read with the header in native byte order."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(path))
        self.sock.settimeout(10)
        self.events = []

    def send_raw(self, data):
        self.sock.sendall(data)

    def send(self, kind, payload=b""):
        payload = payload.encode() if isinstance(payload, str) else payload
        self.send_raw(MAGIC + struct.pack("=II", len(payload), kind) + payload)

    def read_exact(self, count):
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise EOFError(f"closed after {len(data)} of {count} bytes")
            data += chunk
        return data

    def read(self):
        header = self.read_exact(14)
        if header[:6] != MAGIC:
            raise AssertionError(f"a message from kiln without the i3-ipc magic: {header!r}")
        length, kind = struct.unpack("=II", header[6:])
        return kind, self.read_exact(length).decode()

    def ask(self, kind, payload=b""):
        """The reply to one message (events read on the way are kept); it has the request's type."""
        self.send(kind, payload)
        while True:
            got, text = self.read()
            if got & 0x80000000:
                self.events.append((got, json.loads(text)))
                continue
            if got != kind:
                raise AssertionError(f"a reply of type {got} to a message of type {kind}")
            return text

    def json(self, kind, payload=b""):
        return json.loads(self.ask(kind, payload))

    def wait_event(self, predicate, what, timeout=10):
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if predicate(*event):
                    check(True, f"{what}: {json.dumps(event[1])[:200]}")
                    return event[1]
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{what}: not among the events seen: {self.events}")
            self.sock.settimeout(left)
            try:
                kind, text = self.read()
            except socket.timeout:
                continue
            finally:
                self.sock.settimeout(10)
            self.events.append((kind, json.loads(text)))

    def closed(self):
        """Whether kiln closed this connection (what it sent before is read and dropped)."""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return True
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False

    def close(self):
        self.sock.close()


def has(obj, kinds, what):
    wrong = [key for key, kind in kinds.items() if not isinstance(obj.get(key), kind)]
    check(not wrong, f"{what}: has {', '.join(kinds)} of the right types (wrong: {wrong}; {json.dumps(obj)[:300]})")


WORKSPACE_FIELDS = {"id": int, "num": int, "name": str, "visible": bool, "focused": bool, "urgent": bool,
                    "output": str, "rect": dict, "type": str}
WINDOW_FIELDS = {"id": int, "type": str, "name": str, "app_id": str, "pid": int, "focused": bool, "visible": bool,
                 "rect": dict, "nodes": list, "floating_nodes": list}


def kiln_msg(kiln, *args):
    result = subprocess.run([kiln_binary(), "msg", *args], env=kiln.client_env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, timeout=20)
    check(result.returncode == 0, f"kiln msg {' '.join(args)} ({result.stderr.strip()})")
    return json.loads(result.stdout)


def on_screen(kiln, color):
    return kiln.screenshot().count(rgb(color), tolerance=4, step=2) > 1000


def workspaces_by_name(ipc):
    return {w["name"]: w for w in ipc.json(GET_WORKSPACES)}


def all_windows(node):
    for child in node.get("nodes", []) + node.get("floating_nodes", []):
        if child["type"] in ("con", "floating_con"):
            yield child
        yield from all_windows(child)


def main():
    with tempfile.TemporaryDirectory(prefix="kiln-sway-ipc-") as tmp:
        seen_env = Path(tmp) / "startup-env"
        with Kiln("-s", f"echo \"$SWAYSOCK $I3SOCK\" > {seen_env}") as kiln:
            path = Path(kiln.runtime) / f"kiln-{kiln.socket}-sway.sock"
            kiln.wait_for(path.exists, "the sway IPC socket")
            mode = stat_module.S_IMODE(os.stat(path).st_mode)
            check(stat_module.S_ISSOCK(os.stat(path).st_mode) and mode == 0o600,
                  f"the sway IPC socket {path.name} is a socket of mode {mode:o}")
            kiln.wait_for(lambda: seen_env.exists() and seen_env.read_text().strip(), "the startup command's env")
            check(seen_env.read_text().split() == [str(path), str(path)],
                  f"a startup command sees SWAYSOCK and I3SOCK = {path}")

            ipc = I3(path)
            version = ipc.json(GET_VERSION)
            has(version, {"major": int, "minor": int, "patch": int, "human_readable": str}, "GET_VERSION")
            check("kiln" in version["human_readable"], f"GET_VERSION says kiln ({version['human_readable']})")
            [output] = ipc.json(GET_OUTPUTS)
            has(output, {"name": str, "make": str, "model": str, "active": bool, "scale": (int, float),
                         "current_workspace": str, "rect": dict, "current_mode": dict, "modes": list,
                         "focused": bool}, "GET_OUTPUTS")
            check(output["name"] == "HEADLESS-1" and output["rect"] == {"x": 0, "y": 0, "width": 640, "height": 480}
                  and output["current_workspace"] == "1" and output["active"],
                  "GET_OUTPUTS: HEADLESS-1, 640x480 at 0,0, showing workspace 1")
            check(ipc.json(GET_BAR_CONFIG) == [], "GET_BAR_CONFIG: no bar ids (kiln runs no swaybar)")
            bar = ipc.json(GET_BAR_CONFIG, "bar-0")
            check(bar == {"success": False, "error": "No bar with that ID"}, f"GET_BAR_CONFIG bar-0: sway's error")
            check(ipc.json(GET_BINDING_MODES) == ["default"], "GET_BINDING_MODES: default")
            check(ipc.json(GET_BINDING_STATE) == {"name": "default"}, "GET_BINDING_STATE: default")
            check(ipc.json(GET_MARKS) == [], "GET_MARKS: none")

            blue = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "240x180", "--color", BLUE])
            kiln.wait_for(lambda: on_screen(kiln, BLUE), "the blue demo window on screen")
            [listed] = kiln_msg(kiln, "windows")["windows"]

            [one] = ipc.json(GET_WORKSPACES)
            has(one, WORKSPACE_FIELDS, "GET_WORKSPACES")
            check((one["name"], one["num"], one["visible"], one["focused"], one["urgent"], one["output"]) ==
                  ("1", 1, True, True, False, "HEADLESS-1") and one["rect"]["width"] == 640,
                  f"GET_WORKSPACES: workspace 1 (num 1) shown and focused on HEADLESS-1")
            tree = ipc.json(GET_TREE)
            check(tree["type"] == "root" and [o["type"] for o in tree["nodes"]] == ["output"] and
                  [w["name"] for w in tree["nodes"][0]["nodes"]] == ["1"],
                  "GET_TREE: root -> output HEADLESS-1 -> workspace 1")
            [window] = list(all_windows(tree))
            has(window, WINDOW_FIELDS, "GET_TREE's window")
            check(window["id"] == listed["id"] and window["app_id"] == "kiln-demo" and window["focused"] and
                  window["pid"] == blue.pid and window["rect"]["width"] == 240,
                  f"the tree's window is the blue demo, by kiln msg's id {listed['id']}, its pid, focused")
            [seat] = ipc.json(GET_SEATS)
            check(seat["name"] == "seat0" and seat["focus"] == listed["id"], f"GET_SEATS: seat0, focus on it")

            # Events: workspace switches from kiln msg and from a key binding, windows opening and closing.
            events = I3(path)
            check(events.ask(SUBSCRIBE, '["workspace", "window"]') == '{"success": true}',
                  'SUBSCRIBE answers sway\'s exact {"success": true} (waybar 0.9.17 compares the text)')
            kiln_msg(kiln, "workspace", "2")
            event = events.wait_event(lambda kind, e: kind == EVENT_WORKSPACE and e["change"] == "focus" and
                                      e["current"]["name"] == "2",
                                      "kiln msg workspace 2: a workspace focus event for 2")
            check(event["old"]["name"] == "1" and event["current"]["focused"] and event["current"]["num"] == 2,
                  "naming workspace 1 as the old one")
            events.wait_event(lambda kind, e: kind == EVENT_WORKSPACE and e["change"] == "init" and
                              e["current"]["name"] == "2", "and an init event for the new workspace 2")
            spaces = workspaces_by_name(ipc)
            check(spaces["2"]["focused"] and not spaces["1"]["focused"] and not spaces["1"]["visible"],
                  "GET_WORKSPACES: 2 focused, 1 hidden")
            with Connection(kiln.client_env) as conn:
                wl_seat = conn.bind("wl_seat", 5)
                keyboard = conn.create("wl_keyboard", wl_seat, 1)
                keymap = conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 0)
                VirtualKeyboard(conn, wl_seat, keymap).press(SUPER, "1")
            events.wait_event(lambda kind, e: kind == EVENT_WORKSPACE and e["change"] == "focus" and
                              e["current"]["name"] == "1" and e["old"] and e["old"]["name"] == "2",
                              "Super+1 (a key binding): a workspace focus event from 2 to 1")
            events.wait_event(lambda kind, e: kind == EVENT_WORKSPACE and e["change"] == "empty" and
                              e["current"]["name"] == "2", "and workspace 2, left empty, an empty event")

            # RUN_COMMAND: the forms scripts and waybar send.
            check(ipc.json(RUN_COMMAND, "workspace number 3") == [{"success": True}], "workspace number 3")
            kiln.wait_for(lambda: not on_screen(kiln, BLUE), "workspace 3 shown: the blue window hidden")
            check(ipc.json(RUN_COMMAND, 'workspace --no-auto-back-and-forth "1"') == [{"success": True}],
                  "waybar's click form: workspace --no-auto-back-and-forth \"1\"")
            kiln.wait_for(lambda: on_screen(kiln, BLUE), "workspace 1 shown again: the blue window back")
            check(ipc.json(RUN_COMMAND, "move container to workspace 4") == [{"success": True}],
                  "move container to workspace 4 (the focused blue window)")
            kiln.wait_for(lambda: not on_screen(kiln, BLUE), "the blue window left the shown workspace")
            check(kiln_msg(kiln, "windows")["windows"][0]["workspace"] == "4", "kiln msg sees it on workspace 4")
            check(ipc.json(RUN_COMMAND, f"[con_id={listed['id']}] focus") == [{"success": True}],
                  f"[con_id={listed['id']}] focus")
            kiln.wait_for(lambda: on_screen(kiln, BLUE), "focus by con_id shows its workspace 4")
            check(workspaces_by_name(ipc)["4"]["focused"], "and GET_WORKSPACES says 4 is focused")
            results = ipc.json(RUN_COMMAND, "nop; frobnicate now")
            check(results[0] == {"success": True} and results[1]["success"] is False and
                  results[1].get("parse_error") is True and "frobnicate" in results[1]["error"],
                  f"two commands, the second unknown: one result each, sway's parse error ({results})")
            bad = ipc.json(RUN_COMMAND, "[con_id=999999] focus")
            check(bad[0]["success"] is False and "999999" in bad[0]["error"], f"focus of an unknown con_id ({bad})")
            bad = ipc.json(RUN_COMMAND, "[class=foo] kill")
            check(bad[0]["success"] is False and "con_id" in bad[0]["error"], f"criteria kiln does not read ({bad})")
            check(ipc.json(RUN_COMMAND, "reload") == [{"success": True}], "reload")

            red = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "160x120", "--color", RED])
            new = events.wait_event(lambda kind, e: kind == EVENT_WINDOW and e["change"] == "new",
                                    "a window event: new")
            has(new["container"], WINDOW_FIELDS, "the new window's container")
            events.wait_event(lambda kind, e: kind == EVENT_WINDOW and e["change"] == "focus" and
                              e["container"]["id"] == new["container"]["id"], "a window event: focus")
            check(ipc.json(RUN_COMMAND, f"[con_id={new['container']['id']}] kill") == [{"success": True}],
                  "[con_id=N] kill")
            events.wait_event(lambda kind, e: kind == EVENT_WINDOW and e["change"] == "close" and
                              e["container"]["id"] == new["container"]["id"], "a window event: close")
            red.wait(10)
            check(True, f"and the red demo client, asked to close, exited ({red.returncode})")

            # swaymsg, sway's own client, reads kiln's replies.
            if shutil.which("swaymsg"):
                result = kiln.run(["swaymsg", "-r", "-t", "get_workspaces"], env={"SWAYSOCK": str(path)})
                check(result.returncode == 0 and json.loads(result.stdout) == ipc.json(GET_WORKSPACES),
                      f"swaymsg -t get_workspaces reads what GET_WORKSPACES says ({result.returncode})")
                result = kiln.run(["swaymsg", "workspace", "1"], env={"SWAYSOCK": str(path)})
                check(result.returncode == 0, f"swaymsg workspace 1 succeeds ({result.stdout.strip()})")
                result = kiln.run(["swaymsg", "frobnicate"], env={"SWAYSOCK": str(path)})
                check(result.returncode != 0 and "frobnicate" in result.stdout,
                      f"swaymsg frobnicate fails with sway's message ({result.stdout.strip()})")

            # next / prev walk the focused output's workspaces in their order.
            check(ipc.json(RUN_COMMAND, "workspace 1; workspace next") == [{"success": True}] * 2,
                  "workspace 1, then workspace next")
            kiln.wait_for(lambda: on_screen(kiln, BLUE), "workspace next: from 1 to 4, the blue window shown")
            check([w["name"] for w in ipc.json(GET_WORKSPACES) if w["focused"]] == ["4"], "4 focused")

            # Bad input: that client refused or closed, kiln unharmed.
            before = ipc.ask(GET_WORKSPACES)
            unknown = I3(path)
            reply = unknown.json(9999)
            check(reply["success"] is False and "unknown message type 9999" in reply["error"],
                  f"an unknown message type: an error reply of that type ({reply['error']})")
            check(unknown.ask(GET_WORKSPACES) == before, "and the connection still answers")
            check(unknown.json(SUBSCRIBE, '["workspace", "weather"]')["success"] is False,
                  "a subscription to an event sway does not have is refused")
            check(unknown.json(SUBSCRIBE, '{"workspace": 1}')["success"] is False,
                  "a subscription that is not an array is refused")
            unknown.close()
            magic = I3(path)
            magic.send_raw(b"close-sway-ipc")  # what waybar writes as it exits
            check(magic.closed(), "a message without the i3-ipc magic: the connection closed")
            huge = I3(path)
            huge.send_raw(MAGIC + struct.pack("=II", 2 << 20, RUN_COMMAND))
            kind, text = huge.read()
            check(kind == RUN_COMMAND and json.loads(text)["success"] is False and "longer" in text,
                  f"a 2 MiB length: an error reply ({json.loads(text)['error']})")
            check(huge.closed(), "then the connection closed")
            split = I3(path)
            message = MAGIC + struct.pack("=II", 0, GET_WORKSPACES)
            for byte in message:
                split.send_raw(bytes([byte]))
                time.sleep(0.005)
            check(split.read() == (GET_WORKSPACES, before), "a message sent a byte at a time is answered")
            # A client that asks and asks and never reads its replies is dropped, not waited for.
            greedy = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            greedy.connect(str(path))
            greedy.setblocking(False)
            request = (MAGIC + struct.pack("=II", 0, GET_TREE)) * 64
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
            check(dropped and "sway IPC: a client disconnected: it does not read its replies" in kiln.logs(),
                  "a client that never reads its replies is disconnected, and kiln's log says why")
            check(ipc.ask(GET_WORKSPACES) == before and kiln.alive(), "kiln still answers, the same")
            reason = other_uid(kiln, path)
            check(blue.poll() is None, "the blue demo window still runs")
            status, _ = kiln.stop()
            check(status == 0, f"kiln exits 0 ({status})")
            check(not path.exists(), "and its sway IPC socket is gone")
    return reason


NOBODY_CLIENT = """
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("connect:", e.strerror); sys.exit(3)
try:
    s.sendall(b"i3-ipc" + struct.pack("=II", 0, 1))
except OSError:
    pass
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
print("got", len(data), "bytes")
"""


def other_uid(kiln, path):
    """A client of another uid: the socket's mode keeps it out; with the mode opened up, kiln closes it unanswered."""
    if os.geteuid() != 0:
        return "not root: no other uid to run a client as"
    setpriv = shutil.which("setpriv")
    if not setpriv:
        return "setpriv is not installed"
    as_nobody = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", sys.executable, "-c",
                 NOBODY_CLIENT, str(path)]
    runtime = Path(kiln.runtime)
    old_dir_mode = stat_module.S_IMODE(os.stat(runtime).st_mode)
    os.chmod(runtime, 0o711)
    try:
        first = subprocess.run(as_nobody, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=20)
        check(first.returncode == 3 and "Permission denied" in first.stdout,
              f"a client of uid nobody cannot connect through mode 0600 ({first.stdout.strip()})")
        os.chmod(path, 0o666)  # as if the mode were wrong: the peer's uid is still checked
        second = subprocess.run(as_nobody, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                timeout=20)
        os.chmod(path, 0o600)
        check(second.stdout.strip() == "got 0 bytes",
              f"with the socket opened to all, kiln closes the uid-nobody client unanswered ({second.stdout.strip()})")
        check("sway IPC: refused a client of uid 65534" in kiln.logs(), "and logs it")
    finally:
        os.chmod(runtime, old_dir_mode)
    return None


def run():
    reason = main()
    if reason:
        skip(f"every other check passed; the other-uid check needs root and setpriv: {reason}")


run_test(run)
