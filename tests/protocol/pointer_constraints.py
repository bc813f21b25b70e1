#!/usr/bin/env python3
"""Pointer constraints and pointer gestures on headless kiln, driven by a virtual pointer: a locked pointer does not
move (relative motion still arrives), a confined one stays in its region; touchpad swipes, pinches and holds
(injected with kiln_test_input_v1) reach the surface under the pointer with their values, and no other client."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402

PERSISTENT = 2


def constraints(kiln):
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 5)
        pointer = conn.create("wl_pointer", seat, 0)
        relative = conn.create("zwp_relative_pointer_v1", conn.bind("zwp_relative_pointer_manager_v1", 1), 1,
                               ("o", pointer))
        window = Toplevel(conn, "constrained")
        window.commit()
        window.map(400, 300)
        manager = conn.bind("zwlr_virtual_pointer_manager_v1", 1)
        virtual = conn.new_id("zwlr_virtual_pointer_v1")
        conn.send(manager, 0, ("o", seat), ("n", virtual))
        time = [1]

        def move(dx, dy):
            time[0] += 1
            conn.send(virtual, 0, ("u", time[0]), ("f", dx), ("f", dy))
            conn.send(virtual, 4)  # frame
            conn.dispatch_until(lambda e: e.obj == relative and e.opcode == 0)  # the move has been handled
            conn.roundtrip()

        def position():
            """The pointer's last surface-local position from enter and motion events."""
            events = [e for e in conn.events if e.obj == pointer and e.opcode in (0, 2)]
            last = events[-1]
            return tuple(last.args("uoff")[2:]) if last.opcode == 0 else tuple(last.args("uff")[1:])

        conn.send(virtual, 1, ("u", 1), ("u", 232), ("u", 182), ("u", 640), ("u", 480))  # into the window
        conn.send(virtual, 4)
        conn.dispatch_until(lambda e: e.obj == pointer and e.opcode == 0)
        start = position()
        check(start[0] > 0 and start[1] > 0, f"the pointer is over the window at {start}")

        constraints = conn.bind("zwp_pointer_constraints_v1", 1)
        locked = conn.create("zwp_locked_pointer_v1", constraints, 1, ("o", window.surface), ("o", pointer),
                             ("o", 0), ("u", PERSISTENT))
        conn.dispatch_until(lambda e: e.obj == locked and e.opcode == 0)
        check(True, "lock_pointer over the focused window is locked at once")
        move(25.0, -10.0)
        check(position() == start, f"a locked pointer does not move ({position()})")
        check(conn.take(relative, 0) != [], "while relative motion still reaches the client")
        conn.send(locked, 0)  # destroy: unlocked
        move(10.0, -5.0)
        moved = position()
        check(moved == (start[0] + 10, start[1] - 5), f"unlocked, it moves again ({start} -> {moved})")

        # A hint says where the client drew its own cursor: unlocking puts kiln's there.
        locked = conn.create("zwp_locked_pointer_v1", constraints, 1, ("o", window.surface), ("o", pointer),
                             ("o", 0), ("u", PERSISTENT))
        conn.dispatch_until(lambda e: e.obj == locked and e.opcode == 0)
        conn.send(locked, 1, ("f", 50.0), ("f", 60.0))  # set_cursor_position_hint
        window.commit()  # the hint is double-buffered state of the surface
        conn.roundtrip()
        conn.send(locked, 0)
        move(1.0, 1.0)
        check(position() == (51.0, 61.0), f"unlocked with a hint at (50, 60), the cursor continues from it "
              f"({position()})")
        moved = position()

        compositor = conn.bind("wl_compositor", 4)
        region = conn.create("wl_region", compositor, 1)
        x0, y0 = int(moved[0]) - 20, int(moved[1]) - 20
        conn.send(region, 1, ("i", x0), ("i", y0), ("i", 40), ("i", 40))
        confined = conn.create("zwp_confined_pointer_v1", constraints, 2, ("o", window.surface), ("o", pointer),
                               ("o", region), ("u", PERSISTENT))
        conn.dispatch_until(lambda e: e.obj == confined and e.opcode == 0)
        check(True, "confine_pointer to a 40x40 region around the pointer is confined")
        move(1000.0, 1000.0)
        x, y = position()
        check(moved[0] < x < x0 + 40 and moved[1] < y < y0 + 40,
              f"a move of (1000, 1000) stops at the region's edge: ({x}, {y}) inside ({x0}, {y0}) + 40x40")
        move(-1000.0, 0.0)
        x2, y2 = position()
        check(x0 <= x2 < x and y2 == y, f"and back left to its other edge ({x2}, {y2})")
        conn.send(confined, 0)
        move(100.0, 0.0)
        check(position()[0] == x2 + 100, "without the confinement it leaves the region")


class GestureClient:
    """A client with one window and swipe, pinch and hold gesture objects on its pointer."""

    def __init__(self, kiln, title, width, height, color):
        self.title = title
        self.conn = Connection(kiln.client_env)
        seat = self.conn.bind("wl_seat", 5)
        self.pointer = self.conn.create("wl_pointer", seat, 0)
        manager = self.conn.bind("zwp_pointer_gestures_v1", 3)
        self.swipe = self.conn.create("zwp_pointer_gesture_swipe_v1", manager, 0, ("o", self.pointer))
        self.pinch = self.conn.create("zwp_pointer_gesture_pinch_v1", manager, 1, ("o", self.pointer))
        self.hold = self.conn.create("zwp_pointer_gesture_hold_v1", manager, 3, ("o", self.pointer))
        self.window = Toplevel(self.conn, title)
        self.window.commit()
        self.color = color
        self.window.map(width, height, color)

    def gestures(self):
        """The gesture events that came since the last call, as (kind, opcode, event)."""
        self.conn.roundtrip()
        kinds = {self.swipe: "swipe", self.pinch: "pinch", self.hold: "hold"}
        events = [(kinds[e.obj], e.opcode, e) for e in self.conn.events if e.obj in kinds]
        for obj in kinds:
            self.conn.take(obj)
        return events

    def close(self):
        self.conn.close()


def gestures(kiln):
    """Touchpad gestures raised on kiln's headless pointer (kiln_test_input_v1 v3) go through the cursor and
    pointer-gestures to the surface under the pointer, values and all, and to no other client."""
    with Connection(kiln.client_env) as conn:
        check(conn.globals["zwp_pointer_gestures_v1"][1] >= 3, "pointer gestures v3 (swipe, pinch, hold) offered")
    below = GestureClient(kiln, "below", 600, 400, 0xff204060)
    above = GestureClient(kiln, "above", 200, 150, 0xff806020)  # partly over `below`, where kiln placed it
    try:
        with Connection(kiln.client_env) as conn:
            test_input = conn.bind("kiln_test_input_v1", 3)
            seat = conn.bind("wl_seat", 5)
            manager = conn.bind("zwlr_virtual_pointer_manager_v1", 1)
            virtual = conn.new_id("zwlr_virtual_pointer_v1")
            conn.send(manager, 0, ("o", seat), ("n", virtual))

            def point_at(client, x, y):
                conn.send(virtual, 1, ("u", 1), ("u", x), ("u", y), ("u", 640), ("u", 480))  # motion_absolute
                conn.send(virtual, 4)  # frame
                conn.roundtrip()
                enter = client.conn.dispatch_until(lambda e: e.obj == client.pointer and e.opcode == 0)
                check(enter.args("uo")[1] == client.window.surface, f"the pointer at ({x}, {y}) is over the window '{client.title}'")

            # Where each window shows is found on screen, not assumed from placement.
            kiln.placed(above.color, "the upper window is on screen", 200, 150)
            point_at(above, *kiln.screenshot().spot(above.color))
            conn.send(test_input, 10, ("u", 3))                         # swipe begin, 3 fingers
            conn.send(test_input, 11, ("f", 12.5), ("f", -7.25))        # swipe update
            conn.send(test_input, 12, ("u", 0))                         # swipe end
            conn.send(test_input, 13, ("u", 2))                         # pinch begin, 2 fingers
            conn.send(test_input, 14, ("f", 1.5), ("f", -2.0), ("f", 1.75), ("f", -15.5))  # pinch update
            conn.send(test_input, 15, ("u", 1))                         # pinch end, cancelled
            conn.send(test_input, 16, ("u", 4))                         # hold begin, 4 fingers
            conn.send(test_input, 17, ("u", 1))                         # hold end, cancelled
            conn.roundtrip()

            got = above.gestures()
            check([(kind, op) for kind, op, _ in got] ==
                  [("swipe", 0), ("swipe", 1), ("swipe", 2), ("pinch", 0), ("pinch", 1), ("pinch", 2),
                   ("hold", 0), ("hold", 1)],
                  f"the window under the pointer gets begin, update and end of a swipe, a pinch and a hold "
                  f"({[(kind, op) for kind, op, _ in got]})")
            swipe_begin, swipe_update, swipe_end, pinch_begin, pinch_update, pinch_end, hold_begin, hold_end = \
                [event for _, _, event in got]
            check(swipe_begin.args("uuou")[2:] == [above.window.surface, 3], "swipe begin: its surface, 3 fingers")
            check(swipe_update.args("uff")[1:] == [12.5, -7.25], f"swipe update: dx, dy {swipe_update.args('uff')[1:]}")
            check(swipe_end.args("uui")[2] == 0, "swipe end: not cancelled")
            check(pinch_begin.args("uuou")[2:] == [above.window.surface, 2], "pinch begin: its surface, 2 fingers")
            check(pinch_update.args("uffff")[1:] == [1.5, -2.0, 1.75, -15.5],
                  f"pinch update: dx, dy, scale, rotation {pinch_update.args('uffff')[1:]}")
            check(pinch_end.args("uui")[2] == 1, "pinch end: cancelled")
            check(hold_begin.args("uuou")[2:] == [above.window.surface, 4], "hold begin: its surface, 4 fingers")
            check(hold_end.args("uui")[2] == 1, "hold end: cancelled")
            check(below.gestures() == [], "the other client's window, not under the pointer, gets none of them")

            # The pointer moves onto the lower window's visible edge: the next swipe is its, not the upper one's.
            point_at(below, *kiln.screenshot().spot(below.color))
            conn.send(test_input, 10, ("u", 4))
            conn.send(test_input, 11, ("f", -3.0), ("f", 4.5))
            conn.send(test_input, 12, ("u", 1))
            conn.roundtrip()
            got = below.gestures()
            check([(kind, op) for kind, op, _ in got] == [("swipe", 0), ("swipe", 1), ("swipe", 2)],
                  f"moved over the other window, that window gets the swipe ({[(k, op) for k, op, _ in got]})")
            check(got[0][2].args("uuou")[2:] == [below.window.surface, 4] and
                  got[1][2].args("uff")[1:] == [-3.0, 4.5] and got[2][2].args("uui")[2] == 1,
                  "with its surface, fingers, motion and cancellation")
            check(above.gestures() == [], "and the window that had it before gets nothing")
    finally:
        above.close()
        below.close()


def listening(kiln):
    """Kiln's socket file exists a moment before kiln listens: clients other than the wire one (swaybg, grim)
    start only once it does."""
    with Connection(kiln.client_env) as conn:
        conn.roundtrip()


def main():
    for test, args in ((constraints, ()), (gestures, ("--test-input",))):
        with Kiln(*args) as kiln:
            listening(kiln)
            test(kiln)


if __name__ == "__main__":
    run_test(main)
