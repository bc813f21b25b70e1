"""An ext-workspace-v1 bar's view for the protocol tests: opcodes, a Watcher that keeps groups and workspaces as the
events left them, and wl_output binding by name."""
import struct
import time

from kiln_harness import check  # noqa: E402
from wayland_wire import ProtocolError  # noqa: E402

MANAGER = "ext_workspace_manager_v1"
# ext_workspace_manager_v1: events, requests.
WORKSPACE_GROUP, WORKSPACE, DONE, FINISHED = 0, 1, 2, 3
COMMIT, STOP = 0, 1
# ext_workspace_group_handle_v1.
G_CAPABILITIES, OUTPUT_ENTER, OUTPUT_LEAVE, WORKSPACE_ENTER, WORKSPACE_LEAVE, G_REMOVED = range(6)
CREATE_WORKSPACE = 0
# ext_workspace_handle_v1.
W_ID, W_NAME, W_COORDINATES, W_STATE, W_CAPABILITIES, W_REMOVED = range(6)
W_DESTROY, ACTIVATE, DEACTIVATE, ASSIGN, REMOVE = range(5)
ACTIVE = 1
CAP_ACTIVATE, CAP_DEACTIVATE, CAP_REMOVE, CAP_ASSIGN = 1, 2, 4, 8
INVALID_OBJECT = 0  # wl_display.error


class Watcher:
    """A bar's view: groups and workspaces by object id, as the events so far left them; `dones` counts done."""

    def __init__(self, conn, manager):
        self.conn, self.manager = conn, manager
        self.groups, self.workspaces, self.dones, self.log = {}, {}, 0, []

    def read(self):
        for event in list(self.conn.events):
            obj, op = event.obj, event.opcode
            if obj == self.manager:
                if op == WORKSPACE_GROUP:
                    group = event.args("n")[0]
                    self.conn.interfaces[group] = "ext_workspace_group_handle_v1"
                    self.groups[group] = {"outputs": [], "workspaces": [], "removed": False}
                    self.log.append(("group", group))
                elif op == WORKSPACE:
                    ws = event.args("n")[0]
                    self.conn.interfaces[ws] = "ext_workspace_handle_v1"
                    self.workspaces[ws] = {"removed": False}
                    self.log.append(("workspace", ws))
                elif op == DONE:
                    self.dones += 1
                    self.log.append(("done",))
                elif op == FINISHED:
                    self.log.append(("finished",))
            elif obj in self.groups:
                g = self.groups[obj]
                if op == G_CAPABILITIES:
                    g["capabilities"] = event.args("u")[0]
                elif op == OUTPUT_ENTER:
                    g["outputs"].append(event.args("o")[0])
                elif op == OUTPUT_LEAVE:
                    g["outputs"].remove(event.args("o")[0])
                elif op == WORKSPACE_ENTER:
                    g["workspaces"].append(event.args("o")[0])
                elif op == WORKSPACE_LEAVE:
                    g["workspaces"].remove(event.args("o")[0])
                elif op == G_REMOVED:
                    g["removed"] = True
                self.log.append(("group-event", obj, op))
            elif obj in self.workspaces:
                w = self.workspaces[obj]
                if op == W_ID:
                    w["id"] = event.args("s")[0]
                elif op == W_NAME:
                    w["name"] = event.args("s")[0]
                elif op == W_COORDINATES:
                    raw = event.args("a")[0]
                    w["coordinates"] = list(struct.unpack(f"={len(raw) // 4}I", raw))
                elif op == W_STATE:
                    w["state"] = event.args("u")[0]
                elif op == W_CAPABILITIES:
                    w["capabilities"] = event.args("u")[0]
                elif op == W_REMOVED:
                    w["removed"] = True
                self.log.append(("workspace-event", obj, op))
            else:
                continue
            self.conn.events.remove(event)

    def wait_done(self, what, timeout=10):
        """Waits for the next done; returns the events of that batch."""
        start, dones = len(self.log), self.dones
        deadline = time.monotonic() + timeout
        while self.dones == dones:
            if time.monotonic() > deadline:
                raise AssertionError(f"no done came: {what}")
            try:
                self.conn.dispatch_until(lambda e: e.obj == self.manager and e.opcode in (DONE, FINISHED),
                                         timeout=max(0.01, deadline - time.monotonic()))
            except ProtocolError as error:
                if "did not come" not in str(error):
                    raise
                raise AssertionError(f"no done came within {timeout} s: {what} (events: {self.log[start:]})")
            self.read()
        return self.log[start:]

    def quiet(self, what):
        """Two round trips (and a moment for kiln's idle batch) bring no event."""
        start = len(self.log)
        self.conn.roundtrip()
        time.sleep(0.2)
        self.conn.roundtrip()
        self.read()
        check(self.log[start:] == [], f"{what}: no events ({self.log[start:]})")

    def live_groups(self):
        return {g: v for g, v in self.groups.items() if not v["removed"]}

    def names(self, group):
        return [self.workspaces[w]["name"] for w in sorted(self.groups[group]["workspaces"],
                                                            key=lambda w: self.workspaces[w]["coordinates"])]

    def by_name(self, group, name):
        return next(w for w in self.groups[group]["workspaces"] if self.workspaces[w]["name"] == name)

    def commit(self):
        self.conn.send(self.manager, COMMIT)


def outputs_by_name(conn):
    """Binds every wl_output (v4) not bound yet; returns {name: wl_output id}."""
    registry = conn.create("wl_registry", 1, 1)
    conn.roundtrip()
    found = {}
    for event in conn.take(registry, 0):
        name, interface, version = event.args("usu")
        if interface == "wl_output":
            found[name] = version
    return registry, found


def bind_output(conn, registry, name, version):
    output = conn.new_id("wl_output")
    conn.send(registry, 0, ("u", name), ("s", "wl_output"), ("u", min(version, 4)), ("n", output))
    event = conn.dispatch_until(lambda e: e.obj == output and e.opcode == 4)  # name
    conn.events.remove(event)
    return output, event.args("s")[0]
