#!/usr/bin/env python3
"""The implicit pointer grab (wl_pointer.button: "When a button is pressed, an implicit pointer grab is started"), on
headless kiln with a virtual pointer: a button pressed on window A keeps the pointer on A while it is held, whether
the pointer goes over another client's window B, over A's own subsurface, past A's size or off every surface; A gets
the motion in its own coordinates (negative, or past its size) and B nothing, also when B's window changes under it;
after the release B gets enter. A subsurface pressed keeps the pointer the same way. A menu (a grabbing xdg_popup)
opened by the press takes the pointer over, and the release on its item is the menu's. A press on no surface keeps
the pointer on none until it is released. A window unmapped, or its client gone, while its press is held ends the
hold at once: B gets enter without waiting for a move, and the release, whose press B never saw, reaches no one; so
do the pointer device that pressed going away with the button held, another client taking the input inhibitor (its
window under the pointer gets enter at once), and the session locking (the lock surface gets enter at once). With
kiln's test input (--test-input), a tablet pen whose tip is down on a tablet-v2 window keeps that window over another
tablet-v2 window, and a tip working the pointer of a window that speaks no tablet-v2 keeps that window's pointer the
same way."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel, shm_buffer, configure_and_map  # noqa: E402
from virtual_input import HeadlessPen, VirtualPointer  # noqa: E402

WIDTH, HEIGHT = 640, 480
ENTER, LEAVE, MOTION, BUTTON = 0, 1, 2, 3  # wl_pointer events
BTN_LEFT, BTN_RIGHT = 0x110, 0x111
PRESSED, RELEASED = 1, 0
PROXIMITY_IN, PROXIMITY_OUT, DOWN, UP, TOOL_MOTION = 6, 7, 8, 9, 10  # zwp_tablet_tool_v2 events
TOOL_ADDED = 1  # zwp_tablet_seat_v2.tool_added


class Client:
    """One window of `size` with a wl_pointer (and tablet-v2 when `tablet`); `sub`: a 40x40 subsurface at that
    point of the window, whose geometry stays the window's surface."""

    def __init__(self, kiln, title, size, color, sub=None, tablet=False):
        self.conn = conn = Connection(kiln.client_env)
        self.seat = conn.bind("wl_seat", 5)
        self.pointer = conn.create("wl_pointer", self.seat, 0)
        self.tablet_seat = None
        self.tools = set()
        if tablet:
            manager = conn.bind("zwp_tablet_manager_v2", 1)
            self.tablet_seat = conn.create("zwp_tablet_seat_v2", manager, 0, ("o", self.seat))
        self.window = Toplevel(conn, title)
        self.size = size
        conn.send(self.window.xdg_surface, 3, ("i", 0), ("i", 0), ("i", size[0]), ("i", size[1]))
        self.window.commit()
        self.color = color
        self.sub = None
        if sub:
            subcompositor = conn.bind("wl_subcompositor", 1)
            self.sub = conn.create("wl_surface", self.window.compositor, 0)
            subsurface = conn.create("wl_subsurface", subcompositor, 1, ("o", self.sub), ("o", self.window.surface))
            conn.send(subsurface, 1, ("i", sub[0]), ("i", sub[1]))  # set_position
            conn.send(self.sub, 1, ("o", shm_buffer(conn, 40, 40, 0xff0000ff)), ("i", 0), ("i", 0))
            conn.send(self.sub, 6)
        self.window.map(*size, color=color)

    def events(self):
        """The wl_pointer events so far (frames left out), as (name, surface or None, args)."""
        self.conn.roundtrip()
        self.conn.roundtrip()  # a scene change is sent on kiln's next idle turn
        self.conn.answer_pings(self.window.wm_base)
        out = []
        for event in self.conn.take(self.pointer):
            if event.opcode == ENTER:
                _, surface, x, y = event.args("uoff")
                out.append(("enter", surface, (x, y)))
            elif event.opcode == LEAVE:
                out.append(("leave", event.args("uo")[1], None))
            elif event.opcode == MOTION:
                out.append(("motion", None, tuple(event.args("uff")[1:])))
            elif event.opcode == BUTTON:
                out.append(("button", None, tuple(event.args("uuuu")[2:])))
        return out

    def tool_events(self):
        """The pen's tablet-v2 events so far (frames and axes left out), as (name, surface or args)."""
        self.conn.roundtrip()
        self.conn.roundtrip()
        self.conn.answer_pings(self.window.wm_base)
        for event in self.conn.take(self.tablet_seat, TOOL_ADDED) if self.tablet_seat else []:
            self.tools.add(event.args("n")[0])
        names = {PROXIMITY_IN: "proximity_in", PROXIMITY_OUT: "proximity_out", DOWN: "down", UP: "up",
                 TOOL_MOTION: "motion"}
        out = []
        for event in [e for e in self.conn.events if e.obj in self.tools]:
            if event.opcode == PROXIMITY_IN:
                out.append(("proximity_in", event.args("uoo")[2]))
            elif event.opcode == TOOL_MOTION:
                out.append(("motion", tuple(event.args("ff"))))
            elif event.opcode in names:
                out.append((names[event.opcode], None))
        self.conn.events = [e for e in self.conn.events if e.obj not in self.tools]
        return out

    def recommit(self):
        """A new buffer of the same size: the scene changes under the pointer, nothing moves."""
        conn, surface = self.conn, self.window.surface
        conn.send(surface, 1, ("o", shm_buffer(conn, *self.size, self.color)), ("i", 0), ("i", 0))
        conn.send(surface, 2, ("i", 0), ("i", 0), ("i", self.size[0]), ("i", self.size[1]))
        conn.send(surface, 6)
        conn.roundtrip()

    def open_menu(self, x, y, serial, size=100):
        """A grabbing popup (a menu opened by the press with `serial`) centred on the window's point (x, y), mapped;
        returns the popup and its surface."""
        conn, window = self.conn, self.window
        positioner = conn.create("xdg_positioner", window.wm_base, 1)
        conn.send(positioner, 1, ("i", size), ("i", size))  # set_size
        conn.send(positioner, 2, ("i", int(x) - 1), ("i", int(y) - 1), ("i", 2), ("i", 2))  # set_anchor_rect
        surface = conn.create("wl_surface", window.compositor, 0)
        xdg_surface = conn.create("xdg_surface", window.wm_base, 2, ("o", surface))
        popup = conn.create("xdg_popup", xdg_surface, 2, ("o", window.xdg_surface), ("o", positioner))
        conn.send(popup, 1, ("o", self.seat), ("u", serial))  # grab
        configure_and_map(conn, surface, xdg_surface, size, size, 0xffd0d0d0)
        return popup, surface

    def unmap(self):
        self.conn.send(self.window.surface, 1, ("o", 0), ("i", 0), ("i", 0))  # attach(null)
        self.window.commit()
        self.conn.roundtrip()


def origin(client, pointer, x, y):
    """The layout position of client's window surface, from where the pointer at (x, y) enters it."""
    pointer.move(x, y)
    for name, surface, args in client.events():
        if name == "enter" and surface == client.window.surface:
            return round(x - args[0]), round(y - args[1])
        if name == "motion":
            return round(x - args[0]), round(y - args[1])
    raise AssertionError(f"the pointer at ({x}, {y}) is not over window {client.window.surface}")


def placed(kiln, client, pointer, what):
    """Where kiln put client's window (its colour's top-left on screen), checked by the pointer entering it there."""
    shot, box = kiln.placed(client.color, what)
    x, y = shot.spot(client.color)
    check(origin(client, pointer, x, y) == box[:2], f"{what}: the pointer at ({x}, {y}) enters it at its own "
                                                      f"({x - box[0]}, {y - box[1]})")
    return box[:2]


def spot_on(kiln, color, what):
    """A point of the screen where only the window of `color` is (not where placement put the others)."""
    point = kiln.screenshot().spot(color)
    check(point is not None, f"{what} is on screen at {point}")
    return point


def pointer_holds():
    with Kiln(size=f"{WIDTH}x{HEIGHT}") as kiln:
        driver = Connection(kiln.client_env)
        pointer = VirtualPointer(driver, (WIDTH, HEIGHT))
        # B under, A partly over it (where kiln placed them is found on screen); A's subsurface reaches 20 px out
        # of A.
        b = Client(kiln, "B", (400, 300), 0xff00ff00)
        a = Client(kiln, "A", (200, 150), 0xffff0000, sub=(180, 130))
        ax, ay = placed(kiln, a, pointer, "A")
        bx, by = placed(kiln, b, pointer, "B")
        on_b = spot_on(kiln, b.color, "B beside A")
        off = spot_on(kiln, 0x000000, "the bare desktop")  # on no surface
        a.events()

        pointer.move(ax + 100, ay + 75)
        got_a, got_b = a.events(), b.events()
        check(got_a == [("enter", a.window.surface, (100, 75))] and got_b == [("leave", b.window.surface, None)],
              f"the pointer on A's middle: A has it (A {got_a}, B {got_b})")
        pointer.button(True)
        check(a.events() == [("button", None, (BTN_LEFT, PRESSED))], "A hears the press")

        steps = [
            (on_b, "over B"),
            ((min(ax + 250, WIDTH - 1), ay + 75), "past A's width"),
            ((ax + 190, ay + 140), "over A's own subsurface"),
            (off, "off every surface"),
            (on_b, "over B again"),
        ]
        for (x, y), where in steps:
            pointer.move(x, y)
            got_a, got_b = a.events(), b.events()
            check(got_a == [("motion", None, (x - ax, y - ay))] and got_b == [],
                  f"held, the pointer {where}: A gets a motion at its own ({x - ax}, {y - ay}), B nothing "
                  f"(A {got_a}, B {got_b})")

        b.recommit()
        got_a, got_b = a.events(), b.events()
        check(got_a == [] and got_b == [], f"held, B's window changes under the pointer: nobody gets a crossing "
                                           f"(A {got_a}, B {got_b})")

        pointer.button(False)
        got_a, got_b = a.events(), b.events()
        check(got_a == [("button", None, (BTN_LEFT, RELEASED)), ("leave", a.window.surface, None)],
              f"the release goes to A, then the pointer leaves it ({got_a})")
        check(got_b == [("enter", b.window.surface, (on_b[0] - bx, on_b[1] - by))],
              f"and B, under the pointer, gets enter at last ({got_b})")

        # A subsurface pressed keeps the pointer itself.
        pointer.move(ax + 190, ay + 140)
        b.events()
        check(a.events() == [("enter", a.sub, (10, 10))], "the pointer on A's subsurface: the subsurface has it")
        pointer.button(True)
        a.events()
        for (x, y), where in [((ax + 100, ay + 75), "over A's own surface"), (on_b, "over B")]:
            pointer.move(x, y)
            got_a, got_b = a.events(), b.events()
            check(got_a == [("motion", None, (x - ax - 180, y - ay - 130))] and got_b == [],
                  f"held on the subsurface, the pointer {where}: motion in the subsurface's coordinates "
                  f"(A {got_a}, B {got_b})")
        pointer.button(False)
        got_a, got_b = a.events(), b.events()
        check(got_a == [("button", None, (BTN_LEFT, RELEASED)), ("leave", a.sub, None)] and
              got_b == [("enter", b.window.surface, (on_b[0] - bx, on_b[1] - by))],
              f"released: the subsurface gets the release and leave, B enter (A {got_a}, B {got_b})")

        # A press on no surface: the pointer enters nothing until it is released.
        pointer.move(*off)
        b.events()
        pointer.button(True)
        for (x, y), where in [(on_b, "B"), ((ax + 100, ay + 75), "A")]:
            pointer.move(x, y)
            got_a, got_b = a.events(), b.events()
            check(got_a == [] and got_b == [], f"pressed on no surface, the pointer over {where}: no enter "
                                               f"(A {got_a}, B {got_b})")
        pointer.button(False)
        got_a, got_b = a.events(), b.events()
        check(got_a == [("enter", a.window.surface, (100, 75))] and got_b == [],
              f"released over A: A gets enter, and no button (A {got_a}, B {got_b})")

        # A press opens a menu (a grabbing xdg_popup) under the pointer: the menu's grab takes over from the hold, so
        # the menu gets the pointer and the release on its item (press, drag, release).
        pointer.button(True, BTN_RIGHT)
        press = a.conn.dispatch_until(lambda e: e.obj == a.pointer and e.opcode == BUTTON)
        a.conn.events.remove(press)
        menu_popup, menu = a.open_menu(100, 75, press.args("uuuu")[0])
        a.conn.dispatch_until(lambda e: e.obj == a.pointer and e.opcode == ENTER)
        got_a = a.events()
        check(got_a == [("leave", a.window.surface, None), ("enter", menu, (50, 50))],
              f"a menu opens under the held press: it gets the pointer ({got_a})")
        pointer.move(ax + 110, ay + 85)
        pointer.button(False, BTN_RIGHT)
        got_a, got_b = a.events(), b.events()
        check(got_a == [("motion", None, (60, 60)), ("button", None, (BTN_RIGHT, RELEASED))] and got_b == [],
              f"moved onto an item and released: the menu gets the motion and the release (A {got_a}, B {got_b})")
        a.conn.send(menu_popup, 0)  # xdg_popup.destroy: the item chosen, the menu closes
        a.conn.dispatch_until(lambda e: e.obj == a.pointer and e.opcode == ENTER)
        got_a = a.events()
        check(got_a == [("leave", menu, None), ("enter", a.window.surface, (110, 85))],
              f"the menu closes: its window has the pointer again ({got_a})")
        pointer.move(ax + 100, ay + 75)
        a.events()

        # A unmapped while its press is held: B gets the pointer at once; the release is nobody's.
        pointer.button(True)
        pointer.move(*on_b)
        got_a = a.events()
        check(got_a == [("button", None, (BTN_LEFT, PRESSED)), ("motion", None, (on_b[0] - ax, on_b[1] - ay))],
              f"pressed on A and moved over B: A has the pointer ({got_a})")
        a.unmap()
        b.conn.dispatch_until(lambda e: e.obj == b.pointer and e.opcode == ENTER)
        got_a, got_b = a.events(), b.events()
        check(got_a == [("leave", a.window.surface, None)] and
              got_b == [("enter", b.window.surface, (on_b[0] - bx, on_b[1] - by))],
              f"A unmaps while held: A gets leave, B enter at once, with no move (A {got_a}, B {got_b})")
        pointer.button(False)
        got_b = b.events()
        check(got_b == [], f"the release of A's press reaches no one: B never saw it pressed ({got_b})")
        pointer.button(True)
        pointer.button(False)
        got_b = b.events()
        check(got_b == [("button", None, (BTN_LEFT, PRESSED)), ("button", None, (BTN_LEFT, RELEASED))],
              f"B's own click is B's ({got_b})")

        # A client gone while its press is held: the same.
        c = Client(kiln, "C", (100, 100), 0xff0000ff)
        cx, cy = placed(kiln, c, pointer, "C")
        gx, gy = spot_on(kiln, b.color, "B beside C")
        b.events()
        pointer.button(True)
        pointer.move(gx, gy)
        got_c, got_b = c.events(), b.events()
        check(got_c == [("button", None, (BTN_LEFT, PRESSED)), ("motion", None, (gx - cx, gy - cy))] and
              got_b == [], f"pressed on C, moved over B: C has the pointer (C {got_c}, B {got_b})")
        c.conn.close()
        b.conn.dispatch_until(lambda e: e.obj == b.pointer and e.opcode == ENTER)
        got_b = b.events()
        check(got_b == [("enter", b.window.surface, (gx - bx, gy - by))],
              f"C's client goes: B gets enter at once ({got_b})")
        pointer.button(False)
        check(b.events() == [], "and not the release")

        # The pointer device holding the press goes (a virtual pointer's client quits mid-drag): no release will
        # come, so the hold ends there.
        d = Client(kiln, "D", (100, 100), 0xffffff00)
        dx, dy = placed(kiln, d, pointer, "D")
        gx, gy = spot_on(kiln, b.color, "B beside D")
        b.events()
        with Connection(kiln.client_env) as quitter:
            other = VirtualPointer(quitter, (WIDTH, HEIGHT))
            other.button(True)
            other.move(gx, gy)
            got_d = d.events()
            check(got_d == [("button", None, (BTN_LEFT, PRESSED)), ("motion", None, (gx - dx, gy - dy))],
                  f"another virtual pointer presses on D and moves over B: D has the pointer ({got_d})")
        b.conn.dispatch_until(lambda e: e.obj == b.pointer and e.opcode == ENTER)
        got_d, got_b = d.events(), b.events()
        check(got_d == [("leave", d.window.surface, None)] and
              got_b == [("enter", b.window.surface, (gx - bx, gy - by))],
              f"its client quits with the button held: D gets leave, B enter at once (D {got_d}, B {got_b})")
        pointer.button(True)
        pointer.button(False)
        got_b = b.events()
        check(got_b == [("button", None, (BTN_LEFT, PRESSED)), ("button", None, (BTN_LEFT, RELEASED))],
              f"and the next click over B is B's ({got_b})")

        # A client with a window under the pointer takes the input inhibitor while B's press is held: the hold ends,
        # and that window gets the pointer at once; the release is nobody's; B has the pointer again after.
        pointer.move(bx + 200, by + 150)
        b.events()
        pointer.button(True)
        got_b = b.events()
        check(got_b == [("button", None, (BTN_LEFT, PRESSED))], f"B's press is held in its middle ({got_b})")
        inhibiting = Client(kiln, "I", (100, 100), 0xff00ffff)
        _, (ix0, iy0, ix1, iy1) = kiln.placed(inhibiting.color, "I, mapped while B's press is held")
        # The held pointer goes over I where I lies on B, so that B is under it again once I is gone.
        sx, sy = (max(ix0, bx) + min(ix1, bx + 400)) // 2, (max(iy0, by) + min(iy1, by + 300)) // 2
        check(ix0 < sx < ix1 and iy0 < sy < iy1 and bx < sx < bx + 400 and by < sy < by + 300,
              f"I lies partly on B: ({sx}, {sy}) is on both")
        pointer.move(sx, sy)
        got_b, got_i = b.events(), inhibiting.events()
        check(got_b == [("motion", None, (sx - bx, sy - by))] and got_i == [],
              f"held, the pointer goes over I: B keeps it, I gets nothing (B {got_b}, I {got_i})")
        inhibitor = inhibiting.conn.create("zwlr_input_inhibitor_v1",
                                           inhibiting.conn.bind("zwlr_input_inhibit_manager_v1", 1), 0)
        inhibiting.conn.dispatch_until(lambda e: e.obj == inhibiting.pointer and e.opcode == ENTER)
        got_i, got_b = inhibiting.events(), b.events()
        check(got_b == [("leave", b.window.surface, None)] and
              [event[:2] for event in got_i] == [("enter", inhibiting.window.surface)],
              f"its client takes the input inhibitor: B gets leave, its window enter at once (I {got_i}, B {got_b})")
        pointer.button(False)
        check(b.events() == [] and inhibiting.events() == [], "the release reaches no one")
        inhibiting.conn.send(inhibitor, 0)  # destroy
        inhibiting.conn.close()
        b.conn.dispatch_until(lambda e: e.obj == b.pointer and e.opcode == ENTER)
        got_b = b.events()
        check(got_b == [("enter", b.window.surface, (sx - bx, sy - by))],
              f"that client gone, B has the pointer again ({got_b})")

        # The session locks while B's press is held: the lock surface gets the pointer at once, not B.
        pointer.button(True)
        check(b.events() == [("button", None, (BTN_LEFT, PRESSED))], "B's press is held")
        locker = Connection(kiln.client_env)
        lock_pointer = locker.create("wl_pointer", locker.bind("wl_seat", 5), 0)
        lock = locker.create("ext_session_lock_v1", locker.bind("ext_session_lock_manager_v1", 1), 1)
        lock_surface = locker.create("wl_surface", locker.bind("wl_compositor", 4), 0)
        role = locker.create("ext_session_lock_surface_v1", lock, 1, ("o", lock_surface),
                             ("o", locker.bind("wl_output", 2)))
        configure = locker.dispatch_until(lambda e: e.obj == role and e.opcode == 0)
        serial, width, height = configure.args("uuu")
        locker.send(role, 1, ("u", serial))  # ack_configure
        locker.send(lock_surface, 1, ("o", shm_buffer(locker, width, height, 0xff000000)), ("i", 0), ("i", 0))
        locker.send(lock_surface, 6)
        locker.dispatch_until(lambda e: e.obj == lock_pointer and e.opcode == ENTER)
        check(b.events() == [("leave", b.window.surface, None)],
              "locked with B's press held: B gets leave and the lock surface enter, with no move")
        pointer.button(False)
        locker.roundtrip()
        locker.roundtrip()
        released = [e for e in locker.take(lock_pointer) if e.opcode == BUTTON]
        check(released == [] and b.events() == [], "the release reaches neither the locker nor B")
        locker.close()
        check(kiln.alive(), "kiln is still running")


class Pen(HeadlessPen):
    """The headless tablet's pen, on a connection of its own."""

    def __init__(self, kiln):
        super().__init__(Connection(kiln.client_env))


def tablet_holds():
    with Kiln("--test-input", size=f"{WIDTH}x{HEIGHT}") as kiln:
        driver = Connection(kiln.client_env)
        pointer = VirtualPointer(driver, (WIDTH, HEIGHT))
        pen = Pen(kiln)
        b = Client(kiln, "B", (400, 300), 0xff00ff00, tablet=True)
        a = Client(kiln, "A", (200, 150), 0xffff0000, tablet=True)
        ax, ay = placed(kiln, a, pointer, "A")
        bx, by = placed(kiln, b, pointer, "B")
        on_b = spot_on(kiln, b.color, "B beside A")
        off = spot_on(kiln, 0x000000, "the bare desktop")
        pointer.move(*off)  # the pointer out of the way, on no surface
        a.events(), b.events()

        # Both speak tablet-v2: the tip down on A keeps the pen on A over B.
        pen.near(ax + 100, ay + 75)
        got = a.tool_events()
        check(got[:2] == [("proximity_in", a.window.surface), ("motion", (100, 75))], f"the pen near A ({got})")
        b.tool_events()
        pen.tip(True)
        check(a.tool_events() == [("down", None)], "the tip goes down on A")
        pen.move(*on_b)
        got_a, got_b = a.tool_events(), b.tool_events()
        at_a = (on_b[0] - ax, on_b[1] - ay)
        check(got_a == [("motion", at_a)] and got_b == [],
              f"tip down, the pen over B: A keeps it, motion at its own {at_a}, B nothing (A {got_a}, B {got_b})")
        pen.tip(False)
        got_a, got_b = a.tool_events(), b.tool_events()
        check(got_a == [("up", None), ("proximity_out", None)] and got_b[:1] == [("proximity_in", b.window.surface)],
              f"the tip up over B: A gets up and proximity_out, B proximity_in (A {got_a}, B {got_b})")
        pen.away()
        a.tool_events(), b.tool_events()

        # C speaks no tablet-v2: its tip is the left button, and the pointer's hold keeps C over B.
        c = Client(kiln, "C", (100, 100), 0xff0000ff)
        cx, cy = placed(kiln, c, pointer, "C")
        gx, gy = spot_on(kiln, b.color, "B beside A and C")
        pointer.move(*off)
        a.events(), b.events(), c.events()
        pen.near(cx + 50, cy + 50)
        c.events()
        pen.tip(True)
        check(c.events() == [("button", None, (BTN_LEFT, PRESSED))], "the tip on C is C's left button")
        pen.move(gx, gy)
        got_c, got_b, got_tools = c.events(), b.events(), b.tool_events()
        check(got_c == [("motion", None, (gx - cx, gy - cy))] and got_b == [] and got_tools == [],
              f"tip down, the pen over B: C's pointer keeps it, B hears nothing (C {got_c}, B {got_b} {got_tools})")
        pen.tip(False)
        got_c = c.events()
        check(got_c[:2] == [("button", None, (BTN_LEFT, RELEASED)), ("leave", c.window.surface, None)],
              f"the tip up: C gets the release, then leave ({got_c})")
        check(kiln.alive(), "kiln is still running")


def main():
    pointer_holds()
    tablet_holds()


run_test(main)
