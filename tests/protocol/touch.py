#!/usr/bin/env python3
"""Touch on headless kiln: the seat offers wl_touch, and touch points injected through kiln's test-only
kiln_test_input_v1 (--test-input) stay with the surface they went down on, across windows of different clients;
a reused id and a cancel leave nothing stuck."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel, shm_buffer  # noqa: E402

SEAT_TOUCH = 4
DOWN, UP, MOTION, FRAME, CANCEL = range(5)  # wl_touch events
RED, GREEN = 0xffff0000, 0xff00ff00


class TouchClient:
    """A client with one window of one colour and a wl_touch."""

    def __init__(self, kiln, color, size):
        self.conn = Connection(kiln.client_env)
        self.seat = self.conn.bind("wl_seat", 5)
        self.touch = self.conn.create("wl_touch", self.seat, 2)  # get_touch
        self.window = Toplevel(self.conn, f"touch {color:08x}")
        self.window.commit()
        self.window.map(*size, color=color)

    def events(self):
        """The wl_touch events that came (after a round trip), as (opcode, event)."""
        self.conn.roundtrip()
        return [(e.opcode, e) for e in self.conn.take(self.touch)]

    def close(self):
        self.conn.close()


class Injector:
    def __init__(self, kiln):
        self.conn = Connection(kiln.client_env)
        self.input = self.conn.bind("kiln_test_input_v1", 1)

    def down(self, touch_id, x, y):
        self.conn.send(self.input, 1, ("i", touch_id), ("f", x), ("f", y))

    def motion(self, touch_id, x, y):
        self.conn.send(self.input, 2, ("i", touch_id), ("f", x), ("f", y))

    def up(self, touch_id):
        self.conn.send(self.input, 3, ("i", touch_id))

    def frame(self):
        self.conn.send(self.input, 4)
        self.conn.roundtrip()

    def cancel(self, touch_id):
        self.conn.send(self.input, 5, ("i", touch_id))


def pixel_of(shot, color):
    """A layout point showing `color`: the middle of its visible run in the row nearest the middle of its box that
    shows it (another window may cover the middle row: kiln centres new windows, so a cross of two is symmetric)."""
    rgb = ((color >> 16) & 0xff, (color >> 8) & 0xff, color & 0xff)
    box = shot.bounding_box(rgb, tolerance=2)
    check(box is not None, f"colour {color:06x} is on screen")
    x0, y0, x1, y1 = box
    middle = (y0 + y1) // 2
    for y in sorted(range(y0, y1), key=lambda row: abs(row - middle)):
        xs = [x for x in range(x0, x1) if shot.at(x, y) == rgb]
        if xs:
            return xs[len(xs) // 2] + 0.5, y + 0.5
    raise AssertionError(f"colour {color:06x} is in its box but on no row")


def opcodes(events):
    return [op for op, _ in events]


def main():
    with Kiln("--test-input") as kiln:
        with Connection(kiln.client_env) as conn:
            seat = conn.bind("wl_seat", 5)
            conn.roundtrip()
            caps = [e.args("u")[0] for e in conn.take(seat, 0)]
            check(len(caps) == 1 and caps[0] & SEAT_TOUCH, f"headless kiln's seat offers touch (capabilities {caps})")

        # A cross: each window sticks out of the other whatever the placement and stacking.
        a = TouchClient(kiln, RED, (320, 100))
        b = TouchClient(kiln, GREEN, (100, 320))  # mapped last: on top
        injector = Injector(kiln)
        shot = kiln.wait_for(lambda: (s := kiln.screenshot()) and s.count((0, 255, 0), step=4) and
                             s.count((255, 0, 0), step=4) and s, "both windows on screen")
        on_a = pixel_of(shot, RED)  # visible with B on top: outside B

        # Down on A, a move over B, up: all of it A's, in A's coordinates; B hears nothing.
        injector.down(1, *on_a)
        injector.frame()
        got = a.events()
        check(opcodes(got) == [DOWN, FRAME], f"A gets down and frame ({opcodes(got)})")
        _, _, surface, touch_id, sx, sy = got[0][1].args("uuoiff")
        check(surface == a.window.surface and touch_id == 1, "on A's surface, with id 1")
        origin = (on_a[0] - sx, on_a[1] - sy)
        # The touch raised A: what still shows of B is outside A.
        red = shot.count((255, 0, 0), step=2)
        shot = kiln.wait_for(lambda: (s := kiln.screenshot()) and s.count((255, 0, 0), step=2) > red and s,
                             "A raised by the touch")
        on_b = pixel_of(shot, GREEN)
        injector.motion(1, *on_b)
        injector.frame()
        got = a.events()
        check(opcodes(got) == [MOTION, FRAME], f"moving over B, the motion still goes to A ({opcodes(got)})")
        _, touch_id, mx, my = got[0][1].args("uiff")
        check((mx, my) == (on_b[0] - origin[0], on_b[1] - origin[1]),
              f"in A's surface coordinates ({mx}, {my}), over B")
        injector.up(1)
        injector.frame()
        check(opcodes(a.events()) == [UP, FRAME], "A gets the up")
        check(b.events() == [], "B heard nothing of A's touch point")

        # Down on B goes to B.
        injector.down(2, *on_b)
        injector.frame()
        got = b.events()
        check(opcodes(got) == [DOWN, FRAME] and got[0][1].args("uuoiff")[2] == b.window.surface,
              f"a touch down on B goes to B ({opcodes(got)})")
        injector.up(2)
        injector.frame()
        check(opcodes(b.events()) == [UP, FRAME] and a.events() == [], "and its up too, none to A")

        # An id reused while down: the second down is ignored, the first point goes on and ends normally.
        injector.down(3, *on_a)
        injector.down(3, *on_b)
        injector.frame()
        got_a, got_b = a.events(), b.events()
        check(opcodes(got_a) == [DOWN, FRAME] and got_b == [],
              f"a second down with id 3 while 3 is down changes nothing (A {opcodes(got_a)}, B {opcodes(got_b)})")
        injector.up(3)
        injector.frame()
        check(opcodes(a.events()) == [UP, FRAME], "id 3 goes up on A")
        injector.up(3)
        injector.frame()
        check(a.events() == [] and b.events() == [], "an up for an id not down is ignored")
        injector.down(3, *on_b)
        injector.frame()
        check(opcodes(b.events()) == [DOWN, FRAME], "id 3 can go down again, now on B")
        injector.up(3)
        injector.frame()
        b.events()

        # Cancel: the client hears wl_touch.cancel and its points are gone; ids are free again.
        injector.down(4, *on_a)
        injector.down(5, *on_a)
        injector.frame()
        check(opcodes(a.events()) == [DOWN, DOWN, FRAME], "two points down on A")
        injector.cancel(4)
        injector.conn.roundtrip()
        check(opcodes(a.events()) == [CANCEL], "a cancel sends A wl_touch.cancel")
        injector.motion(5, *on_b)
        injector.up(5)
        injector.frame()
        check(a.events() == [], "after the cancel, A's other point sends nothing more (motion, up)")
        injector.down(4, *on_b)
        injector.frame()
        check(opcodes(b.events()) == [DOWN, FRAME], "the cancelled id goes down again, on B")
        injector.up(4)
        injector.frame()
        check(opcodes(b.events()) == [UP, FRAME], "and up")

        # A window destroyed (its client still connected) while a finger is down on it: the client hears the point
        # end (up or cancel) at once, so it holds no touch on a surface that is gone; the finger's later up is
        # harmless. Twice: a toplevel, then a subsurface covering its parent.
        for case in ("toplevel", "subsurface"):
            d = TouchClient(kiln, 0xff0000ff, (60, 60))
            target = d.window.surface
            if case == "subsurface":
                compositor = d.conn.bind("wl_compositor", 4)
                subcompositor = d.conn.bind("wl_subcompositor", 1)
                target = d.conn.create("wl_surface", compositor, 0)
                d.conn.create("wl_subsurface", subcompositor, 1, ("o", target), ("o", d.window.surface))
                d.conn.send(target, 1, ("o", shm_buffer(d.conn, 60, 60, 0xffffff00)), ("i", 0), ("i", 0))
                d.conn.send(target, 2, ("i", 0), ("i", 0), ("i", 60), ("i", 60))
                d.conn.send(target, 6)
                d.window.commit()  # the subsurface's position and buffer apply with its parent's commit
            color = 0xffffff00 if case == "subsurface" else 0xff0000ff
            shot = kiln.wait_for(lambda: (s := kiln.screenshot()) and s.count(
                ((color >> 16) & 0xff, (color >> 8) & 0xff, color & 0xff), step=2) > 100 and s, f"the {case} shown")
            injector.down(8, *pixel_of(shot, color))
            injector.frame()
            got = d.events()
            check(opcodes(got) == [DOWN, FRAME] and got[0][1].args("uuoiff")[2] == target,
                  f"{case}: a point goes down on it ({opcodes(got)})")
            if case == "toplevel":
                d.conn.send(d.window.toplevel, 0)
                d.conn.send(d.window.xdg_surface, 0)
            d.conn.send(target, 0)  # wl_surface.destroy
            got = opcodes(d.events())
            check(UP in got or CANCEL in got, f"{case}: destroying the surface ends its touch point ({got})")
            injector.up(8)
            injector.frame()
            check(d.events() == [], f"{case}: the finger's up afterwards sends nothing more")
            d.close()

        # A touch point whose window closes while down: its up is harmless.
        injector.down(6, *on_a)
        injector.frame()
        a.events()
        a.close()
        kiln.wait_for(lambda: kiln.screenshot().count((255, 0, 0), step=4) == 0, "A's window gone")
        injector.up(6)
        injector.down(6, *on_b)
        injector.frame()
        got = opcodes(b.events())
        check(got == [DOWN, FRAME], f"a point whose client left ends cleanly; its id is usable again ({got})")
        injector.up(6)
        injector.frame()
        b.events()

        # A window whose client has no wl_touch: a touch there reaches nobody, and touch goes on working.
        c = Connection(kiln.client_env)
        window = Toplevel(c, "no touch")
        window.commit()
        window.map(120, 120, color=0xff0000ff)
        shot = kiln.wait_for(lambda: (s := kiln.screenshot()) and s.count((0, 0, 255), step=4) and s,
                             "the window without touch on screen")
        injector.down(7, *pixel_of(shot, 0xff0000ff))
        injector.motion(7, *on_b)
        injector.up(7)
        injector.frame()
        check(b.events() == [], "a touch on a client without wl_touch goes nowhere else")
        c.close()
        check(kiln.alive(), "kiln is still running")
        status, _ = kiln.stop()
        check(status == 0, f"kiln exits 0 (got {status})")

    with Kiln() as kiln:
        with Connection(kiln.client_env) as conn:
            check("kiln_test_input_v1" not in conn.globals, "without --test-input the injection global is not offered")


run_test(main)
