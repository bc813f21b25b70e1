#!/usr/bin/env python3
"""A test client's side of xdg-shell on headless kiln (640x480), shared by the xdg_shell_*.py tests: a toplevel that
records and acks its configures, popups and their positioners, a virtual pointer with the client's own wl_pointer and
wl_keyboard, screen boxes found by exact colour, and the loop that runs each case on a fresh kiln."""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, ProtocolError, Toplevel, shm_buffer  # noqa: E402

OUTPUT_W, OUTPUT_H = 640, 480
BTN_LEFT = 0x110
MAXIMIZED, FULLSCREEN, RESIZING, ACTIVATED = 1, 2, 3, 4
# xdg_positioner anchor and gravity values, and constraint adjustments.
TOP_LEFT, BOTTOM_LEFT, TOP_RIGHT, BOTTOM_RIGHT = 5, 6, 7, 8
SLIDE_X, SLIDE_Y, FLIP_X, FLIP_Y, RESIZE_X, RESIZE_Y = 1, 2, 4, 8, 16, 32
EDGE_BOTTOM_RIGHT, EDGE_LEFT = 10, 4


def u32s(data):
    return [int.from_bytes(data[i:i + 4], sys.byteorder) for i in range(0, len(data), 4)]


class Window(Toplevel):
    """A toplevel that records its configures: next_configure() returns (width, height, states) and acks it."""

    def next_configure(self):
        conn = self.conn
        event = conn.dispatch_until(lambda e: e.obj == self.xdg_surface and e.opcode == 0)
        conn.events.remove(event)
        configures = conn.take(self.toplevel, 0)
        width, height, states = configures[-1].args("iia") if configures else (0, 0, b"")
        conn.send(self.xdg_surface, 4, ("u", event.args("u")[0]))  # ack_configure
        return width, height, set(u32s(states))

    def settle(self):
        """Acks whatever configures are on their way (focus changes send some after a map)."""
        self.conn.roundtrip()
        self.conn.roundtrip()
        configures = [e for e in self.conn.events if e.obj == self.xdg_surface and e.opcode == 0]
        for event in configures:
            self.conn.events.remove(event)
        if configures:
            self.conn.send(self.xdg_surface, 4, ("u", configures[-1].args("u")[0]))
        self.conn.take(self.toplevel, 0)

    def configure_until(self, predicate, what):
        """Acks configures until one (width, height, states) satisfies predicate; returns it."""
        seen = []
        try:
            while True:
                configure = self.next_configure()
                seen.append(configure)
                if predicate(*configure):
                    return configure
        except ProtocolError:
            raise AssertionError(f"{what}: no such configure came (got {seen})")

    def draw(self, width, height, color, geometry=None, inner=None):
        buffer = shm_buffer(self.conn, width, height, color, inner=inner)
        if geometry:
            self.conn.send(self.xdg_surface, 3, *[("i", v) for v in geometry])  # set_window_geometry
        self.conn.send(self.surface, 1, ("o", buffer), ("i", 0), ("i", 0))
        self.conn.send(self.surface, 2, ("i", 0), ("i", 0), ("i", width), ("i", height))
        self.commit()
        self.conn.roundtrip()

    def show(self, width, height, color, **kwargs):
        """Initial commit, first configure, then a buffer: the window maps. Returns the first configure."""
        self.commit()
        first = self.next_configure()
        self.draw(width, height, color, **kwargs)
        return first

    def unmap(self):
        self.conn.send(self.surface, 1, ("o", 0), ("i", 0), ("i", 0))
        self.commit()
        self.conn.roundtrip()


def rgb_of(color):
    return (color >> 16) & 0xff, (color >> 8) & 0xff, color & 0xff


def box_of(shot, color):
    """The exact bounding box (x0, y0, x1, y1) of an exact colour in a screenshot, or None (a fast row scan)."""
    pattern = bytes(rgb_of(color))
    row_bytes = shot.width * 3
    x0 = y0 = x1 = y1 = None
    for y in range(shot.height):
        row = shot.pixels[y * row_bytes:(y + 1) * row_bytes]
        first = row.find(pattern)
        while first != -1 and first % 3:
            first = row.find(pattern, first + 1)
        if first == -1:
            continue
        last = row.rfind(pattern)
        while last != -1 and last % 3:
            last = row.rfind(pattern, 0, last + 2)
        x0 = first // 3 if x0 is None else min(x0, first // 3)
        x1 = last // 3 + 1 if x1 is None else max(x1, last // 3 + 1)
        y0 = y if y0 is None else y0
        y1 = y + 1
    return None if x0 is None else (x0, y0, x1, y1)


def box_on(kiln, color, output=None):
    """The colour's bounding box in a screenshot of the whole layout, or of `output` alone; None: not on screen."""
    return box_of(kiln.screenshot(output), color)


def wait_box(kiln, color, expected, what, output=None):
    """Waits until the colour's bounding box on screen (on `output` alone, if named) is `expected` (None: not on
    screen; "shown": anywhere); returns it."""
    last = []

    def matches():
        last[:] = [box_on(kiln, color, output)]
        return (last[0] is not None) if expected == "shown" else last[0] == expected

    try:
        kiln.wait_for(matches, what, timeout=10, interval=0.05)
    except AssertionError:
        raise AssertionError(f"{what}: expected {expected}, on screen {last[0] if last else None}")
    check(True, f"{what} ({last[0]})")
    return last[0]


def wait_box_sized(kiln, color, width, height, what):
    """Waits until the colour is on screen, whole, as a width x height box; returns the box."""
    found = []

    def whole():
        box = box_of(kiln.screenshot(), color)
        found[:] = [box]
        return box is not None and box[2] - box[0] == width and box[3] - box[1] == height

    try:
        kiln.wait_for(whole, what, timeout=10, interval=0.05)
    except AssertionError:
        raise AssertionError(f"{what}: expected a whole {width}x{height} box, on screen {found[0] if found else None}")
    return found[0]


class Input:
    """A virtual pointer and the client's wl_pointer and wl_keyboard on one connection."""

    def __init__(self, conn):
        self.conn = conn
        self.seat = conn.bind("wl_seat", 5)
        self.pointer = conn.create("wl_pointer", self.seat, 0)
        self.keyboard = conn.create("wl_keyboard", self.seat, 1)
        manager = conn.bind("zwlr_virtual_pointer_manager_v1", 1)
        self.virtual = conn.new_id("zwlr_virtual_pointer_v1")
        conn.send(manager, 0, ("o", self.seat), ("n", self.virtual))
        self.time = 1

    def _tick(self):
        self.time += 1
        return ("u", self.time)

    def move_to(self, x, y):
        self.conn.send(self.virtual, 1, self._tick(), ("u", x), ("u", y), ("u", OUTPUT_W), ("u", OUTPUT_H))
        self.conn.send(self.virtual, 4)
        self.conn.roundtrip()

    def move_by(self, dx, dy):
        self.conn.send(self.virtual, 0, self._tick(), ("f", float(dx)), ("f", float(dy)))
        self.conn.send(self.virtual, 4)
        self.conn.roundtrip()

    def button(self, pressed):
        self.conn.send(self.virtual, 2, self._tick(), ("u", BTN_LEFT), ("u", 1 if pressed else 0))
        self.conn.send(self.virtual, 4)
        self.conn.roundtrip()

    def press(self):
        """Presses the left button over a window of this client; returns the press's serial."""
        self.conn.take(self.pointer, 3)
        self.button(True)
        event = self.conn.dispatch_until(lambda e: e.obj == self.pointer and e.opcode == 3 and e.args("uuuu")[3] == 1)
        self.conn.events.remove(event)
        return event.args("u")[0]

    def focused(self):
        """The surface the last keyboard enter named (after a round trip)."""
        self.conn.roundtrip()
        enters = [e.args("uo")[1] for e in self.conn.events if e.obj == self.keyboard and e.opcode == 1]
        return enters[-1] if enters else None

    def close(self):
        for event in self.conn.take(self.keyboard, 0):
            for fd in event.fds:
                os.close(fd)


def wait_listening(kiln):
    with Connection(kiln.client_env) as conn:
        conn.roundtrip()


# --- popups -------------------------------------------------------------------------------------------------------

def make_positioner(conn, wm_base, size, anchor_rect, anchor, gravity, adjustment):
    positioner = conn.create("xdg_positioner", wm_base, 1)
    conn.send(positioner, 1, ("i", size[0]), ("i", size[1]))
    conn.send(positioner, 2, *[("i", v) for v in anchor_rect])
    conn.send(positioner, 3, ("u", anchor))
    conn.send(positioner, 4, ("u", gravity))
    conn.send(positioner, 5, ("u", adjustment))
    return positioner


class Popup:
    def __init__(self, conn, wm_base, parent_xdg, positioner, grab=None):
        self.conn = conn
        compositor = conn.bind("wl_compositor", 4)
        self.surface = conn.create("wl_surface", compositor, 0)
        self.xdg_surface = conn.create("xdg_surface", wm_base, 2, ("o", self.surface))
        self.popup = conn.create("xdg_popup", self.xdg_surface, 2, ("o", parent_xdg), ("o", positioner))
        if grab:
            conn.send(self.popup, 1, ("o", grab[0]), ("u", grab[1]))
        conn.send(self.surface, 6)  # commit

    def configure(self):
        event = self.conn.dispatch_until(lambda e: e.obj == self.xdg_surface and e.opcode == 0)
        self.conn.events.remove(event)
        x, y, w, h = self.conn.take(self.popup, 0)[-1].args("iiii")
        self.conn.send(self.xdg_surface, 4, ("u", event.args("u")[0]))
        return x, y, w, h

    def draw(self, width, height, color):
        buffer = shm_buffer(self.conn, width, height, color)
        self.conn.send(self.surface, 1, ("o", buffer), ("i", 0), ("i", 0))
        self.conn.send(self.surface, 6)
        self.conn.roundtrip()

    def destroy(self):
        self.conn.send(self.popup, 0)
        self.conn.send(self.xdg_surface, 0)
        self.conn.roundtrip()


# --- running the cases --------------------------------------------------------------------------------------------

def run_cases(cases):
    """Runs each case (a function of kiln) on a fresh headless kiln of OUTPUT_W x OUTPUT_H, and checks kiln is still
    running after it and exits 0 on SIGTERM; with names on the command line, runs only the cases named (and leaves
    kiln's exit to the harness)."""
    only = sys.argv[1:]
    by_name = {case.__name__: case for case in cases}
    chosen = [by_name[name] for name in only] if only else cases

    def main():
        need("grim")
        for test in chosen:
            print(f"--- {test.__name__}")
            with Kiln(size=f"{OUTPUT_W}x{OUTPUT_H}") as kiln:
                wait_listening(kiln)
                test(kiln)
                check(kiln.alive(), f"kiln is still running after {test.__name__}")
                if not only:
                    status, _ = kiln.stop()
                    check(status == 0, f"kiln exits 0 on SIGTERM (got {status})")
    run_test(main)
