#!/usr/bin/env python3
"""Drawing tablets on headless kiln: zwp_tablet_manager_v2 announces the headless tablet and, once it first comes
near, its pen; the pen, driven through kiln's test-only kiln_test_input_v1 (--test-input), comes in proximity of the
tablet-v2 client's surface under it with surface-local motion, tip down and up; with the tip down the surface keeps
the pen when it strays over another window; over a client that has not bound tablet-v2 the pen works the pointer
instead (enter and motion, the tip as the left button). While another client holds the input inhibitor the pen
reaches the window no more. The client the pen is over sets its cursor image (set_cursor, for the pen's current
proximity); another client cannot, and the image goes when the pen leaves that client's window."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, rgb, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel, shm_buffer  # noqa: E402
from virtual_input import HeadlessPen  # noqa: E402

WIDTH, HEIGHT = 640, 480
TABLET_ADDED, TOOL_ADDED = 0, 1  # zwp_tablet_seat_v2 events
PROXIMITY_IN, PROXIMITY_OUT, DOWN, UP, MOTION, FRAME = 6, 7, 8, 9, 10, 18  # zwp_tablet_tool_v2 events
P_ENTER, P_LEAVE, P_MOTION, P_BUTTON = 0, 1, 2, 3  # wl_pointer events
BTN_LEFT = 0x110
CROSSHAIR_SHAPE = 8  # wp_cursor_shape_device_v1.shape.crosshair
NAMES = {PROXIMITY_IN: "proximity_in", PROXIMITY_OUT: "proximity_out", DOWN: "down", UP: "up", MOTION: "motion"}


class Client:
    """A client with one window and a wl_pointer; with `tablet`, bound to tablet-v2 too."""

    def __init__(self, kiln, title, size, color, tablet):
        self.conn = Connection(kiln.client_env)
        self.seat = self.conn.bind("wl_seat", 5)
        self.pointer = self.conn.create("wl_pointer", self.seat, 0)
        self.tablet_seat = None
        if tablet:
            manager = self.conn.bind("zwp_tablet_manager_v2", 1)
            self.tablet_seat = self.conn.create("zwp_tablet_seat_v2", manager, 0, ("o", self.seat))
        self.window = Toplevel(self.conn, title)
        self.window.commit()
        self.window.map(*size, color=color)
        self.tools = set()
        self.serial = None  # the pen's last proximity_in serial

    def set_cursor(self, serial, color):
        """zwp_tablet_tool_v2.set_cursor with a new 16x16 surface of one colour (hotspot 0,0) for every tool."""
        surface = self.conn.create("wl_surface", self.window.compositor, 0)
        self.conn.send(surface, 1, ("o", shm_buffer(self.conn, 16, 16, color)), ("i", 0), ("i", 0))  # attach
        self.conn.send(surface, 6)  # commit
        for tool in self.tools:
            self.conn.send(tool, 0, ("u", serial), ("o", surface), ("i", 0), ("i", 0))
        self.conn.roundtrip()

    def tablet_events(self):
        """The pen's tablet-v2 events since the last call (frames left out), as (name, args)."""
        self.conn.roundtrip()
        self.conn.answer_pings(self.window.wm_base)
        for event in self.conn.take(self.tablet_seat, TOOL_ADDED) if self.tablet_seat else []:
            self.tools.add(event.args("n")[0])
        out = []
        for event in list(self.conn.events):
            if event.obj not in self.tools or event.opcode not in NAMES:
                continue
            if event.opcode == PROXIMITY_IN:
                self.serial, tablet, surface = event.args("uoo")
                out.append(("proximity_in", surface))
            elif event.opcode == MOTION:
                out.append(("motion", tuple(event.args("ff"))))
            else:
                out.append((NAMES[event.opcode], None))
        self.conn.events = [e for e in self.conn.events if e.obj not in self.tools]
        return out

    def pointer_events(self):
        """The wl_pointer events since the last call (frames left out), as (name, args)."""
        self.conn.roundtrip()
        self.conn.answer_pings(self.window.wm_base)
        out = []
        for event in self.conn.take(self.pointer):
            if event.opcode == P_ENTER:
                _, surface, x, y = event.args("uoff")
                out.append(("enter", (surface, x, y)))
            elif event.opcode == P_MOTION:
                out.append(("pointer motion", tuple(event.args("uff")[1:])))
            elif event.opcode == P_BUTTON:
                _, _, button, state = event.args("uuuu")
                out.append(("button", (button, state)))
            elif event.opcode == P_LEAVE:
                out.append(("leave", None))
        return out


class Pen(HeadlessPen):
    """The headless tablet's pen, through kiln_test_input_v1 version 2, and a virtual pointer to locate windows."""

    def __init__(self, kiln):
        super().__init__(Connection(kiln.client_env))
        seat = self.conn.bind("wl_seat", 5)
        manager = self.conn.bind("zwlr_virtual_pointer_manager_v1", 1)
        self.pointer = self.conn.new_id("zwlr_virtual_pointer_v1")
        self.conn.send(manager, 0, ("o", seat), ("n", self.pointer))

    def point(self, x, y):
        self.conn.send(self.pointer, 1, ("u", 0), ("u", x), ("u", y), ("u", WIDTH), ("u", HEIGHT))
        self.conn.send(self.pointer, 4)  # frame
        self.conn.roundtrip()


def origin(client, pen, x, y):
    """The layout position of client's window, from where a pointer at (x, y) enters it."""
    pen.point(x, y)
    for name, args in client.pointer_events():
        if name == "enter" and args[0] == client.window.surface:
            return x - args[1], y - args[2]
        if name == "pointer motion":
            return x - args[0], y - args[1]
    raise AssertionError(f"the pointer at ({x}, {y}) is not over {client.window.surface}")


def main():
    with Kiln("--test-input", size=f"{WIDTH}x{HEIGHT}") as kiln:
        pen = Pen(kiln)
        # Under: a client that knows no tablets, filling the output; over it, in the middle, one that does.
        plain = Client(kiln, "plain", (WIDTH, HEIGHT), 0xff00ff00, tablet=False)
        drawing = Client(kiln, "drawing", (200, 150), 0xffff0000, tablet=True)
        added = drawing.conn.take(drawing.tablet_seat, TABLET_ADDED)
        check(len(added) == 1, f"the tablet-v2 client is told of the headless tablet ({len(added)} tablet(s))")
        ox, oy = origin(drawing, pen, 320, 240)
        px, py = origin(plain, pen, 10, 10)
        drawing.pointer_events()

        pen.near(ox + 30, oy + 40)
        got = drawing.tablet_events()
        check(len(drawing.tools) == 1, f"the pen is announced when it first comes near ({len(drawing.tools)} tool(s))")
        check(got[:2] == [("proximity_in", drawing.window.surface), ("motion", (30, 40))],
              f"the pen comes near over the tablet-v2 window: proximity_in on its surface, motion at the "
              f"surface-local (30, 40) ({got})")
        pen.move(ox + 50.5, oy + 60)
        got = drawing.tablet_events()
        check(got == [("motion", (50.5, 60))], f"pen motion is surface-local ({got})")
        pen.tip(True)
        got = drawing.tablet_events()
        check(got == [("down", None)], f"the tip goes down ({got})")
        pen.move(px + 5, py + 5)  # off the window, over the plain client, with the tip down
        got = drawing.tablet_events()
        check(got == [("motion", (px + 5 - ox, py + 5 - oy))],
              f"with the tip down the window keeps the pen off its edge, motion still local to it ({got})")
        pen.tip(False)
        got = drawing.tablet_events()
        check(got == [("up", None), ("proximity_out", None)],
              f"the tip comes up over the other window: up, then the pen leaves ({got})")
        got = plain.pointer_events()
        check(("button", (BTN_LEFT, 1)) not in got, f"the plain client saw no click from the tablet window's tip "
              f"({got})")

        # Over the client without tablet-v2 the pen is a pointer.
        pen.move(px + 20, py + 25)
        got = plain.pointer_events()
        check(("enter", (plain.window.surface, 20, 25)) in got or ("pointer motion", (20, 25)) in got,
              f"over a client without tablet-v2 the pen moves the pointer there ({got})")
        check(drawing.tablet_events() == [], "the tablet-v2 client hears nothing of it")

        # Back over the tablet-v2 window, and away.
        pen.move(ox + 10, oy + 10)
        got = drawing.tablet_events()
        check(got == [("proximity_in", drawing.window.surface), ("motion", (10, 10))],
              f"back over the tablet-v2 window: proximity_in and motion again ({got})")
        pen.away()
        got = drawing.tablet_events()
        check(got == [("proximity_out", None)], f"the pen goes away: proximity_out ({got})")

        # A client takes the input inhibitor (a lock screen): the pen leaves the window and no longer reaches it.
        pen.near(ox + 10, oy + 10)
        drawing.tablet_events()
        with Connection(kiln.client_env) as locker:
            inhibitor = locker.create("zwlr_input_inhibitor_v1", locker.bind("zwlr_input_inhibit_manager_v1", 1), 0)
            locker.roundtrip()
            got = drawing.tablet_events()
            check(got == [("proximity_out", None)], f"input inhibited by another client: the pen leaves ({got})")
            pen.move(ox + 20, oy + 20)
            pen.tip(True)
            pen.tip(False)
            got = drawing.tablet_events()
            check(got == [], f"and while it is, the pen's moves and tip reach the window no more ({got})")
            locker.send(inhibitor, 0)  # destroy
            locker.roundtrip()
        pen.move(ox + 25, oy + 25)
        got = drawing.tablet_events()
        check(got == [("proximity_in", drawing.window.surface), ("motion", (25, 25))],
              f"once the inhibitor is gone the pen reaches the window again ({got})")
        pen.away()
        drawing.tablet_events()

        # Near again over the plain client: its tip is a click there (which raises that window, as a click does).
        pen.near(px + 30, py + 35)
        plain.pointer_events()
        pen.tip(True)
        pen.tip(False)
        got = plain.pointer_events()
        check(got == [("button", (BTN_LEFT, 1)), ("button", (BTN_LEFT, 0))],
              f"over a client without tablet-v2 the tip is the left button, pressed and released ({got})")
        check(drawing.tablet_events() == [], "the tablet-v2 client hears nothing of it")
        check(kiln.alive(), "kiln is still running")
    cursor_image()


def cursor_image():
    need("grim")
    blue, yellow = rgb("0000ff"), rgb("ffff00")
    with Kiln("--test-input", size=f"{WIDTH}x{HEIGHT}") as kiln:
        pen = Pen(kiln)
        plain = Client(kiln, "plain", (WIDTH, HEIGHT), 0xff00ff00, tablet=False)
        other = Client(kiln, "other", (40, 30), 0xff00ff00, tablet=True)  # under the drawing window
        drawing = Client(kiln, "drawing", (200, 150), 0xffff0000, tablet=True)
        ox, oy = map(round, origin(drawing, pen, 320, 240))
        px, py = map(round, origin(plain, pen, 10, 10))
        x, y = ox + 30, oy + 40
        pen.near(x, y)
        drawing.tablet_events()
        other.tablet_events()
        serial = drawing.serial
        drawing.set_cursor(serial, 0xff0000ff)
        kiln.wait_for(lambda: kiln.screenshot().at(x + 8, y + 8) == blue, "the pen's image the client set")
        check(True, "the client the pen is over sets its image (set_cursor with the proximity's serial): blue")
        other.set_cursor(serial, 0xffffff00)
        drawing.set_cursor(serial + 1000, 0xffffff00)
        pen.move(x + 1, y)  # a frame is drawn
        shot = kiln.screenshot()
        check(shot.at(x + 9, y + 8) == blue and shot.count(yellow) == 0,
              "another client's set_cursor, and one with another serial, change nothing")
        pen.move(px + 20, py + 20)  # over the client without tablet-v2
        kiln.wait_for(lambda: kiln.screenshot().count(blue) == 0, "the pen's image to go")
        check(True, "once the pen leaves for a window without tablet-v2 its client's image goes")
        pen.move(x, y)
        drawing.tablet_events()
        check(drawing.serial != serial and kiln.screenshot().count(blue) == 0,
              "back over the window, a new proximity: no image until the client sets one again")
        drawing.set_cursor(drawing.serial, 0xff0000ff)
        kiln.wait_for(lambda: kiln.screenshot().at(x + 8, y + 8) == blue, "the pen's image again")
        check(True, "which it then does")

        # cursor-shape-v1 for the tool: a shape replaces the image, under the same rules as set_cursor.
        manager = drawing.conn.bind("wp_cursor_shape_manager_v1", 2)
        devices = [drawing.conn.create("wp_cursor_shape_device_v1", manager, 2, ("o", tool)) for tool in drawing.tools]
        for device in devices:
            drawing.conn.send(device, 1, ("u", drawing.serial + 1000), ("u", CROSSHAIR_SHAPE))
        drawing.conn.roundtrip()
        pen.move(x, y)  # a frame is drawn
        check(kiln.screenshot().at(x + 8, y + 8) == blue, "a shape with another serial changes nothing")
        for device in devices:
            drawing.conn.send(device, 1, ("u", drawing.serial), ("u", CROSSHAIR_SHAPE))
        drawing.conn.roundtrip()

        def crosshair():
            shot = kiln.screenshot()
            # Adwaita's crosshair: its hotspot is its centre, so it reaches left of and above the pen, where the
            # client's 16x16 image (hotspot 0,0) never did.
            left = [shot.at(x - d, y) for d in range(2, 9)]
            return shot.count(blue) == 0 and any(p != (255, 0, 0) for p in left)

        kiln.wait_for(crosshair, "the tool's crosshair shape")
        check(True, "the client the pen is over names a shape for it (get_tablet_tool_v2, set_shape): drawn")
        check(kiln.alive(), "kiln is still running")


run_test(main)
