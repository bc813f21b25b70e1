#!/usr/bin/env python3
"""Pointer constraints and pointer gestures on headless kiln, driven by a virtual pointer: a locked pointer does not
move (relative motion still arrives), a confined one stays in its region, and gesture objects can be had."""
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


def gestures(kiln):
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 5)
        pointer = conn.create("wl_pointer", seat, 0)
        check(conn.globals["zwp_pointer_gestures_v1"][1] >= 3, "pointer gestures v3 (swipe, pinch, hold) offered")
        manager = conn.bind("zwp_pointer_gestures_v1", 3)
        swipe = conn.create("zwp_pointer_gesture_swipe_v1", manager, 0, ("o", pointer))
        pinch = conn.create("zwp_pointer_gesture_pinch_v1", manager, 1, ("o", pointer))
        hold = conn.create("zwp_pointer_gesture_hold_v1", manager, 3, ("o", pointer))
        conn.roundtrip()
        for gesture in (swipe, pinch, hold):
            conn.send(gesture, 0)  # destroy
        conn.roundtrip()
        check(True, "swipe, pinch and hold gestures are created and destroyed without error")


def listening(kiln):
    """Kiln's socket file exists a moment before kiln listens: clients other than the wire one (swaybg, grim)
    start only once it does."""
    with Connection(kiln.client_env) as conn:
        conn.roundtrip()


def main():
    for test in (constraints, gestures):
        with Kiln() as kiln:
            listening(kiln)
            test(kiln)


if __name__ == "__main__":
    run_test(main)
