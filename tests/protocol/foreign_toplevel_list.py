#!/usr/bin/env python3
"""ext_foreign_toplevel_list_v1 on headless kiln: a list gets a handle per mapped window, xdg and X11 alike, with a
unique identifier, title and app_id then done; a window mapping later is announced, a title change is sent with done,
an unmap closes the handle; stop ends with finished and no more windows;
`--restrict foreign-toplevel-list` hides the global from a client kiln did not start, while a -s command sees it."""
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402
from x11_window import X11_CLIENT, XWindow, x_display  # noqa: E402

LIST = "ext_foreign_toplevel_list_v1"
TOPLEVEL, FINISHED = 0, 1                                 # list events
CLOSED, DONE, TITLE, APP_ID, IDENTIFIER = 0, 1, 2, 3, 4  # handle events


class Watcher:
    """A client bound to the list; handles by object id with what they said so far."""

    def __init__(self, kiln):
        self.conn = Connection(kiln.client_env)
        self.list = self.conn.bind(LIST, 1)
        self.handles = {}

    def read(self):
        self.conn.roundtrip()
        for event in list(self.conn.events):
            if event.obj == self.list and event.opcode == TOPLEVEL:
                handle = event.args("n")[0]
                self.conn.interfaces[handle] = "ext_foreign_toplevel_handle_v1"
                self.handles[handle] = {"events": []}
            elif event.obj in self.handles:
                h = self.handles[event.obj]
                name = {CLOSED: "closed", DONE: "done", TITLE: "title", APP_ID: "app_id", IDENTIFIER: "identifier"}
                if event.opcode in (TITLE, APP_ID, IDENTIFIER):
                    h[name[event.opcode]] = event.args("s")[0]
                h["events"].append(name[event.opcode])
            else:
                continue
            self.conn.events.remove(event)

    def wait(self, predicate, what, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.read()
            found = [h for h in self.handles.values() if predicate(h)]
            if found:
                return found[0]
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}: {self.handles}")

    def by_title(self, title):
        return self.wait(lambda h: h.get("title") == title and h["events"][-1] == "done", f"a handle '{title}'")


def listing(kiln):
    with Connection(kiln.client_env) as app:
        first = Toplevel(app, "first window")
        app.send(first.toplevel, 3, ("s", "org.kiln.first"))  # set_app_id
        first.commit()
        first.map(100, 100)

        watcher = Watcher(kiln)
        h1 = watcher.by_title("first window")
        check(h1["events"] == ["identifier", "title", "app_id", "done"] and h1["app_id"] == "org.kiln.first",
              f"a window mapped before the list binds is announced: identifier, title, app_id, done ({h1})")

        second = Toplevel(app, "second window")
        second.commit()
        second.map(100, 100)
        h2 = watcher.by_title("second window")
        check(h2["identifier"] != h1["identifier"], "a window mapped later is announced, its identifier another")

        app.send(second.toplevel, 2, ("s", "second, renamed"))  # set_title
        second.commit()
        app.roundtrip()
        h2 = watcher.wait(lambda h: h.get("title") == "second, renamed" and h["events"][-1] == "done",
                          "the new title")
        check(True, "a title change is sent, with done")

        app.send(second.surface, 1, ("o", 0), ("i", 0), ("i", 0))  # unmap
        second.commit()
        app.roundtrip()
        watcher.wait(lambda h: h is h2 and h["events"][-1] == "closed", "the handle to close")
        check(True, "an unmapped window's handle is closed")

        unseen = Toplevel(app, "before stop")  # made now, mapped after stop
        watcher.conn.send(watcher.list, 0)  # stop
        watcher.conn.dispatch_until(lambda e: e.obj == watcher.list and e.opcode == FINISHED)
        check(True, "stop is answered finished")
        unseen.commit()
        unseen.map(50, 50)
        app.roundtrip()
        watcher.read()
        check(not any(h.get("title") == "before stop" for h in watcher.handles.values()),
              "no window is announced after finished")
        for handle in watcher.handles:
            watcher.conn.send(handle, 0)  # destroy
        watcher.conn.send(watcher.list, 1)  # destroy
        watcher.conn.roundtrip()
        watcher.conn.close()


def x11_window(kiln):
    if not shutil.which("Xwayland") or not Path(X11_CLIENT).exists():
        print("skip: no Xwayland or kiln-x11-client: X11 windows not checked")
        return
    watcher = Watcher(kiln)
    window = XWindow(kiln, x_display(kiln), "ff00ff", 300, 200, 60, 60)
    h = watcher.wait(lambda h: h.get("title") == "x11 window ff00ff" and "done" in h["events"],
                     "the X11 window's handle", timeout=30)
    check(True, f"an X11 window is listed too ({h})")
    window.proc.kill()
    watcher.wait(lambda h: h.get("title") == "x11 window ff00ff" and h["events"][-1] == "closed",
                 "the X11 window's handle to close", timeout=30)
    check(True, "its handle closes when the X11 window goes")
    watcher.conn.close()


def restricted():
    scratch = tempfile.mkdtemp(prefix="kiln-toplevel-list-")
    try:
        seen = Path(scratch) / "globals"
        need("wayland-info")
        command = f"wayland-info > {seen}.part; mv {seen}.part {seen}"
        with Kiln("--restrict", "foreign-toplevel-list", "-s", command) as kiln:
            with Connection(kiln.client_env) as conn:
                check(LIST not in conn.globals,
                      "--restrict foreign-toplevel-list hides it from a client kiln did not start")
            kiln.wait_for(lambda: seen.exists(), "the -s command's wayland-info")
            check(f"'{LIST}'" in seen.read_text(), "a command kiln started still sees it")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    with Kiln() as kiln:
        check(Connection(kiln.client_env).globals.get(LIST, (0, 0))[1] == 1, f"kiln offers {LIST} version 1")
        listing(kiln)
        x11_window(kiln)
    restricted()


run_test(main)
