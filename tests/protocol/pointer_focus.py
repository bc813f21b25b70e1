#!/usr/bin/env python3
"""Pointer focus follows the scene: under a pointer that does not move, a popup opening or closing, a window mapping
on top, being raised, unmapping or growing gives wl_pointer.leave to the surface that had the pointer and
wl_pointer.enter to the one now under it, and a window moving under it gets a motion; wl_seat.capabilities is sent
once, not again while nothing changes."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import ARGB8888, Connection, Toplevel, shm_buffer, configure_and_map  # noqa: E402

ENTER, LEAVE, MOTION, BUTTON, AXIS, FRAME = range(6)  # wl_pointer events
WIDTH, HEIGHT = 640, 480
POINT = (400, 300)  # inside every window the size of the output, wherever kiln places it


class PointerClient:
    """A client with one output-sized window and a wl_pointer."""

    def __init__(self, kiln, title, color, size=(WIDTH, HEIGHT)):
        self.conn = Connection(kiln.client_env)
        self.seat = self.conn.bind("wl_seat", 5)
        self.pointer = self.conn.create("wl_pointer", self.seat, 0)
        self.window = Toplevel(self.conn, title)
        self.window.commit()
        self.window.map(*size, color=color)

    def attach(self, width, height, color):
        """A new buffer of another size, committed (a resize, as far as the scene is concerned)."""
        conn, surface = self.conn, self.window.surface
        conn.send(surface, 1, ("o", shm_buffer(conn, width, height, color, ARGB8888)), ("i", 0), ("i", 0))
        conn.send(surface, 2, ("i", 0), ("i", 0), ("i", width), ("i", height))
        conn.send(surface, 6)
        conn.roundtrip()

    def crossings(self):
        """The enter/leave events so far, as ('enter'|'leave', surface)."""
        self.conn.roundtrip()
        out = []
        for event in self.conn.take(self.pointer):
            if event.opcode == ENTER:
                out.append(("enter", event.args("uoff")[1]))
            elif event.opcode == LEAVE:
                out.append(("leave", event.args("uo")[1]))
        return out

    def wait_crossing(self, kind):
        opcode = ENTER if kind == "enter" else LEAVE
        self.conn.dispatch_until(lambda e: e.obj == self.pointer and e.opcode == opcode)
        return self.crossings()

    def open_popup(self, x, y, size=100):
        """A popup of A's window centred on A's surface point (x, y), mapped; returns (popup, its surface)."""
        conn, window = self.conn, self.window
        positioner = conn.create("xdg_positioner", window.wm_base, 1)
        conn.send(positioner, 1, ("i", size), ("i", size))  # set_size
        conn.send(positioner, 2, ("i", int(x) - 1), ("i", int(y) - 1), ("i", 2), ("i", 2))  # set_anchor_rect
        surface = conn.create("wl_surface", window.compositor, 0)
        xdg_surface = conn.create("xdg_surface", window.wm_base, 2, ("o", surface))
        popup = conn.create("xdg_popup", xdg_surface, 2, ("o", window.xdg_surface), ("o", positioner))
        configure_and_map(conn, surface, xdg_surface, size, size, 0xff0000ff, ARGB8888)
        return popup, surface

    def unmap(self):
        self.conn.send(self.window.surface, 1, ("o", 0), ("i", 0), ("i", 0))  # attach(null)
        self.window.commit()
        self.conn.roundtrip()


class Panel:
    """A taskbar (wlr-foreign-toplevel-management) that can raise a window by title, and a virtual pointer."""

    def __init__(self, kiln):
        self.conn = Connection(kiln.client_env)
        self.seat = self.conn.bind("wl_seat", 5)
        self.manager = self.conn.bind("zwlr_foreign_toplevel_manager_v1", 3)
        pointers = self.conn.bind("zwlr_virtual_pointer_manager_v1", 1)
        self.virtual = self.conn.new_id("zwlr_virtual_pointer_v1")
        self.conn.send(pointers, 0, ("o", self.seat), ("n", self.virtual))

    def point_at(self, x, y):
        self.conn.send(self.virtual, 1, ("u", 1), ("u", x), ("u", y), ("u", WIDTH), ("u", HEIGHT))
        self.conn.send(self.virtual, 4)  # frame
        self.conn.roundtrip()

    def activate(self, title):
        self.conn.roundtrip()
        handles = {e.args("n")[0] for e in self.conn.events if e.obj == self.manager and e.opcode == 0}
        for event in self.conn.events:
            if event.obj in handles and event.opcode == 0 and event.args("s")[0] == title:  # title
                self.conn.send(event.obj, 4, ("o", self.seat))  # activate
                self.conn.roundtrip()
                return
        raise AssertionError(f"no foreign toplevel handle titled {title}")


def main():
    with Kiln(size=f"{WIDTH}x{HEIGHT}") as kiln:
        panel = Panel(kiln)
        a = PointerClient(kiln, "A", 0xffff0000)
        panel.point_at(*POINT)
        enter = a.conn.dispatch_until(lambda e: e.obj == a.pointer and e.opcode == ENTER)
        check(a.crossings() == [("enter", a.window.surface)], "the pointer moved onto A: A has it")

        _, _, sx, sy = enter.args("uoff")
        popup, popup_surface = a.open_popup(sx, sy)
        got = a.crossings()
        check(got == [("leave", a.window.surface), ("enter", popup_surface)],
              f"a popup opening under the pointer takes it from its window ({got})")
        a.conn.send(popup, 0)  # xdg_popup.destroy: unmapped with no commit
        a.conn.roundtrip()
        got = a.crossings()
        check(got == [("leave", popup_surface), ("enter", a.window.surface)],
              f"and when the popup closes the window has it again ({got})")

        b = PointerClient(kiln, "B", 0xff00ff00)
        got_b = b.wait_crossing("enter")
        got_a = a.crossings()
        check(got_a == [("leave", a.window.surface)] and got_b == [("enter", b.window.surface)],
              f"B maps on top under the still pointer: A gets leave, B enter (A {got_a}, B {got_b})")

        panel.activate("A")
        got_a = a.wait_crossing("enter")
        got_b = b.crossings()
        check(got_a == [("enter", a.window.surface)] and got_b == [("leave", b.window.surface)],
              f"A is raised over B: B gets leave, A enter (A {got_a}, B {got_b})")

        a.unmap()
        got_b = b.wait_crossing("enter")
        got_a = a.crossings()
        check(got_a == [("leave", a.window.surface)] and got_b == [("enter", b.window.surface)],
              f"A unmaps: the pointer goes back to B (A {got_a}, B {got_b})")

        b.conn.send(b.window.toplevel, 0)  # xdg_toplevel.destroy: unmapped with no commit
        b.conn.roundtrip()
        got_b = b.crossings()
        check(got_b == [("leave", b.window.surface)], f"B's toplevel destroyed: B gets leave ({got_b})")

        # Capabilities: one event per bind, none while devices come and go without changing them.
        with Connection(kiln.client_env) as conn:
            seat = conn.bind("wl_seat", 5)
            conn.roundtrip()
            first = conn.take(seat, 0)
            pointers = conn.bind("zwlr_virtual_pointer_manager_v1", 1)
            virtual = conn.new_id("zwlr_virtual_pointer_v1")
            conn.send(pointers, 0, ("o", seat), ("n", virtual))
            conn.roundtrip()
            conn.send(virtual, 8)  # destroy
            conn.roundtrip()
            later = conn.take(seat, 0)
            check(len(first) == 1 and later == [],
                  f"wl_seat.capabilities came once, and not again for a pointer added and removed ({len(first)}, "
                  f"{len(later)})")
        check(kiln.alive(), "kiln is still running")

    # Resize and move under a still pointer.
    need("grim")
    with Kiln(size=f"{WIDTH}x{HEIGHT}") as kiln:
        panel = Panel(kiln)
        a = PointerClient(kiln, "A", 0xffff0000, size=(200, 150))
        x0, y0, _, _ = kiln.wait_for(lambda: kiln.screenshot().bounding_box((255, 0, 0)), "A on screen")
        point = (x0 + 250, y0 + 50)  # right of the 200-wide window, on the desktop
        panel.point_at(*point)
        check(a.crossings() == [], f"the pointer at {point} is beside A: no enter")
        a.attach(400, 300, 0xffff0000)
        enter = a.conn.dispatch_until(lambda e: e.obj == a.pointer and e.opcode == ENTER)
        _, _, sx, sy = enter.args("uoff")
        check((sx, sy) == (250, 50), f"A grows to 400x300 under the still pointer: it gets enter at ({sx}, {sy})")
        a.crossings()

        # Fullscreen moves the window to the output's corner: the pointer is at another point of it, a motion says
        # where. The point lies in the 400x300 window both where it is and at the corner, so the move is a motion
        # whether the window moves before its new buffer comes or with it.
        point = ((x0 + 400) // 2, (y0 + 300) // 2)
        panel.point_at(*point)
        a.crossings()
        a.conn.send(a.window.toplevel, 11, ("o", 0))  # set_fullscreen(null)
        serial = a.window.wait_configure()
        check(serial > 0, "fullscreen is configured")
        a.attach(WIDTH, HEIGHT, 0xffff0000)

        def motion_to_point(event):
            return event.obj == a.pointer and event.opcode == MOTION and tuple(event.args("uff")[1:]) == point

        a.conn.dispatch_until(motion_to_point)
        check(True, f"moved to the output's corner, A gets a motion to {point}, the pointer's own layout point")
        check(kiln.alive(), "kiln is still running")


run_test(main)
