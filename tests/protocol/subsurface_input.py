#!/usr/bin/env python3
"""Input regions and subsurfaces under a still pointer, on headless kiln: a subsurface moved under the pointer gets
wl_pointer.enter at the right surface-local point, a move within it a motion, a move away a leave (and its parent an
enter); place_above and place_below change which of two stacked subsurfaces gets the pointer; an input region made
empty passes the pointer to what is below (another subsurface, the parent) and a region restored takes it back; the
parent's input region shrunk off the pointer leaves it on no surface."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel, shm_buffer  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402

ENTER, LEAVE, MOTION = 0, 1, 2  # wl_pointer events
SET_POSITION, PLACE_ABOVE, PLACE_BELOW = 1, 2, 3  # wl_subsurface requests


class Client:
    def __init__(self, kiln):
        self.conn = conn = Connection(kiln.client_env)
        self.seat = conn.bind("wl_seat", 5)
        self.pointer = conn.create("wl_pointer", self.seat, 0)
        self.window = Toplevel(conn, "subsurfaces")
        # The window's geometry is the parent surface: a subsurface reaching out of it does not move the window.
        conn.send(self.window.xdg_surface, 3, ("i", 0), ("i", 0), ("i", 200), ("i", 200))
        self.window.commit()
        self.window.map(200, 200, color=0xff202020)
        self.subcompositor = conn.bind("wl_subcompositor", 1)
        self.focus = None  # the surface with the pointer when expect_on last looked

    def subsurface(self, color, position):
        conn = self.conn
        surface = conn.create("wl_surface", self.window.compositor, 0)
        sub = conn.create("wl_subsurface", self.subcompositor, 1, ("o", surface), ("o", self.window.surface))
        conn.send(sub, SET_POSITION, ("i", position[0]), ("i", position[1]))
        conn.send(surface, 1, ("o", shm_buffer(conn, 40, 40, color)), ("i", 0), ("i", 0))
        conn.send(surface, 2, ("i", 0), ("i", 0), ("i", 40), ("i", 40))
        conn.send(surface, 6)
        return surface, sub

    def apply(self):
        """The parent's commit: subsurface positions, order and synchronized state take effect."""
        self.window.commit()

    def region(self, *rects):
        region = self.conn.create("wl_region", self.window.compositor, 1)
        for rect in rects:
            self.conn.send(region, 1, *[("i", v) for v in rect])
        return region

    def expect(self, what, *expected):
        """Waits for wl_pointer events with these (opcode, surface or None, (x, y) or None), in order."""
        conn = self.conn
        got = []
        for opcode, surface, point in expected:
            try:
                event = conn.dispatch_until(lambda e: e.obj == self.pointer and e.opcode == opcode)
            except AssertionError:
                seen = [(e.opcode, e.payload) for e in conn.events if e.obj == self.pointer]
                raise AssertionError(f"{what}: pointer event {opcode} did not come (before it: {got}, {seen})")
            index = conn.events.index(event)
            got += [e.opcode for e in conn.events[:index] if e.obj == self.pointer]
            conn.events = [e for e in conn.events[index + 1:]]
            if opcode == ENTER:
                _, entered, x, y = event.args("uoff")
            elif opcode == LEAVE:
                entered, x, y = event.args("uo")[1], None, None
            else:
                _, x, y = event.args("uff")
                entered = None
            if surface is not None:
                check(entered == surface, f"{what}: event {opcode} names surface {surface} (got {entered})")
            if point is not None:
                check((x, y) == point, f"{what}: at surface-local {point} (got {(x, y)})")

    def expect_on(self, what, surface, point):
        """Waits until the client's pointer state (from its enter, leave and motion events) is on `surface` at
        `point`, however it got there (a motion, or a leave and an enter: whether the scene's update or the
        pointer's move came first does not matter)."""
        conn = self.conn
        state = [self.focus, None]

        def follow(event):
            if event.obj != self.pointer:
                return False
            if event.opcode == ENTER:
                _, state[0], x, y = event.args("uoff")
                state[1] = (x, y)
            elif event.opcode == LEAVE:
                state[0], state[1] = None, None
            elif event.opcode == MOTION:
                state[1] = tuple(event.args("uff")[1:])
            return state[0] == surface and state[1] == point
        try:
            conn.dispatch_until(follow)
        except AssertionError:
            raise AssertionError(f"{what}: the pointer did not come to surface {surface} at {point} (last {state})")
        conn.events = []
        self.focus = surface
        check(True, f"{what}: on surface {surface} at {point}")

    def still(self, what):
        self.conn.roundtrip()
        self.conn.roundtrip()
        got = [e.opcode for e in self.conn.events if e.obj == self.pointer and e.opcode in (ENTER, LEAVE, MOTION)]
        check(got == [], f"{what}: no crossing or motion ({got})")
        self.conn.events = []


def main():
    with Kiln() as kiln:
        c = Client(kiln)
        pointer = VirtualPointer(c.conn, (640, 480))
        pointer.move(320, 240)  # kiln centres new windows: inside the 200x200 window
        event = c.conn.dispatch_until(lambda e: e.obj == c.pointer and e.opcode == ENTER)
        _, _, px, py = event.args("uoff")
        c.conn.events = []
        px, py = int(px), int(py)  # the pointer's point on the parent (whole pixels: a pixel's corner)
        check(60 <= px <= 140 and 60 <= py <= 140, f"the pointer is on the window's middle ({px}, {py})")

        # One subsurface away from the pointer: nothing changes.
        red, red_sub = c.subsurface(0xffff0000, (0, 0))
        c.apply()
        c.still("a subsurface mapped away from the pointer")
        # Moved under it: enter at the point less its position.
        c.conn.send(red_sub, SET_POSITION, ("i", px - 10), ("i", py - 15))
        c.apply()
        c.expect("a subsurface moved under the pointer", (LEAVE, c.window.surface, None), (ENTER, red, (10.0, 15.0)))
        # Moved within reach: a motion at the new local point.
        c.conn.send(red_sub, SET_POSITION, ("i", px - 30), ("i", py - 5))
        c.apply()
        c.expect("the subsurface moved under the still pointer", (MOTION, None, (30.0, 5.0)))
        # Moved off: leave, and the parent gets the pointer back where it is.
        c.conn.send(red_sub, SET_POSITION, ("i", 0), ("i", 0))
        c.apply()
        c.expect("the subsurface moved off the pointer", (LEAVE, red, None), (ENTER, c.window.surface,
                                                                            (float(px), float(py))))

        # Two subsurfaces stacked under the pointer: the upper one has it; place_below / place_above swap them.
        c.conn.send(red_sub, SET_POSITION, ("i", px - 20), ("i", py - 20))
        green, green_sub = c.subsurface(0xff00ff00, (px - 10, py - 10))  # made last: above red
        c.apply()
        c.expect("two subsurfaces stacked under the pointer", (ENTER, green, (10.0, 10.0)))
        c.conn.send(green_sub, PLACE_BELOW, ("o", red))
        c.apply()
        c.expect("place_below puts the other on top", (LEAVE, green, None), (ENTER, red, (20.0, 20.0)))
        c.conn.send(green_sub, PLACE_ABOVE, ("o", red))
        c.apply()
        c.expect("place_above brings it back", (LEAVE, red, None), (ENTER, green, (10.0, 10.0)))

        # Input regions: the upper one's made empty passes the pointer to the one below, restored takes it back.
        c.conn.send(green, 5, ("o", c.region()))  # set_input_region: empty
        c.conn.send(green, 6)
        c.apply()
        c.expect("an empty input region on the upper subsurface", (LEAVE, green, None), (ENTER, red, (20.0, 20.0)))
        c.conn.send(green, 5, ("o", 0))  # infinite again
        c.conn.send(green, 6)
        c.apply()
        c.expect("its input region restored", (LEAVE, red, None), (ENTER, green, (10.0, 10.0)))
        # Both subsurfaces away, the parent's input region shrunk off the pointer: no surface has it; back again.
        c.conn.send(red_sub, SET_POSITION, ("i", 0), ("i", 0))
        c.conn.send(green_sub, SET_POSITION, ("i", 0), ("i", 0))
        c.conn.send(c.window.surface, 5, ("o", c.region((0, 0, 20, 20))))
        c.apply()
        c.expect("the parent's input region shrunk off the pointer", (LEAVE, green, None))
        c.still("no surface under the pointer takes input")
        c.conn.send(c.window.surface, 5, ("o", 0))
        c.apply()
        c.expect("the parent's input region restored", (ENTER, c.window.surface, (float(px), float(py))))

        # A subsurface reaching out of its parent takes input there; with the parent's input region empty, the
        # subsurface still takes it over the parent.
        c.conn.send(red_sub, SET_POSITION, ("i", -30), ("i", 190))  # 30 px left of the window, 10 px into it
        c.apply()
        pointer.move(320 - px - 20, 240 - py + 220)  # 20 px left of the window, 20 px below it: on red only
        c.expect("a point on the part of a subsurface outside its parent", (LEAVE, c.window.surface, None),
                 (ENTER, red, (10.0, 30.0)))
        c.focus = red
        c.conn.send(c.window.surface, 5, ("o", c.region()))
        c.conn.send(red_sub, SET_POSITION, ("i", px - 5), ("i", py - 5))
        c.apply()
        pointer.move(320, 240)
        c.expect_on("the parent's input region empty, a subsurface over it", red, (5.0, 5.0))
        check(kiln.alive(), "kiln is still running")


run_test(main)
