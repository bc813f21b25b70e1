#!/usr/bin/env python3
"""zwlr_virtual_pointer_v1 on headless kiln: events wait for the client's frame. A motion into a window, a button
press and a scroll sent without a frame reach no window; at the frame they arrive, in order, closed by a
wl_pointer.frame."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402

ENTER, LEAVE, MOTION, BUTTON, AXIS, FRAME = 0, 1, 2, 3, 4, 5  # wl_pointer events
BTN_LEFT = 0x110


def main():
    with Kiln() as kiln:
        with Connection(kiln.client_env) as conn, Connection(kiln.client_env) as driver:
            seat = conn.bind("wl_seat", 5)
            pointer = conn.create("wl_pointer", seat, 0)
            window = Toplevel(conn, "virtual pointer")
            window.commit()
            window.map(640, 480)  # the whole output: any point is on it
            conn.roundtrip()
            conn.take(pointer)

            manager = driver.bind("zwlr_virtual_pointer_manager_v1", 1)
            driver_seat = driver.bind("wl_seat", 5)
            virtual = driver.new_id("zwlr_virtual_pointer_v1")
            driver.send(manager, 0, ("o", driver_seat), ("n", virtual))
            driver.send(virtual, 1, ("u", 10), ("u", 100), ("u", 120), ("u", 640), ("u", 480))  # motion_absolute
            driver.send(virtual, 2, ("u", 11), ("u", BTN_LEFT), ("u", 1))  # button pressed
            driver.send(virtual, 3, ("u", 12), ("u", 0), ("f", 5.0))  # axis: vertical scroll
            driver.roundtrip()
            conn.roundtrip()
            got = [e.opcode for e in conn.take(pointer)]
            check(got == [], f"events without a frame reach no window ({got})")

            driver.send(virtual, 4)  # frame
            driver.roundtrip()
            conn.dispatch_until(lambda e: e.obj == pointer and e.opcode == FRAME and
                                any(x.obj == pointer and x.opcode == AXIS for x in conn.events))
            events = conn.take(pointer)
            got = [e.opcode for e in events]
            check(got[:1] == [ENTER] and got.index(BUTTON) < got.index(AXIS) and got[-1] == FRAME,
                  f"at the frame: enter, the button, the scroll, then a frame ({got})")
            enter = events[0].args("uoff")
            check(enter[1] == window.surface and enter[2:] == [100.0, 120.0],
                  f"entered at the moved-to point ({enter[2:]})")
            button = next(e for e in events if e.opcode == BUTTON).args("uuuu")
            check(button[2:] == [BTN_LEFT, 1], f"the left button pressed ({button[2:]})")
            driver.send(virtual, 2, ("u", 13), ("u", BTN_LEFT), ("u", 0))
            driver.send(virtual, 4)
            driver.roundtrip()
            conn.dispatch_until(lambda e: e.obj == pointer and e.opcode == BUTTON)
        check(kiln.alive(), "kiln is still running")


run_test(main)
