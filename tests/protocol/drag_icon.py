#!/usr/bin/env python3
"""wl_data_device.start_drag's icon: a client presses on its window and starts a drag with a 24x24 magenta icon
surface. While the virtual pointer moves, the icon is on screen, whole, at the pointer plus the offset its
wl_surface.attach x, y add up to (changed mid-drag too), over a second client's window; it gets wl_surface.enter and
its frame callbacks. The icon takes no input: the second client's wl_data_device hears enter and motion at the
pointer's position in its window. Released, the drag ends and the icon is gone from the screen; a second drag whose
icon surface is destroyed mid-drag loses the icon at once and runs on, and kiln too."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, shm_buffer  # noqa: E402
from xdg_shell_client import Input, Window, wait_box  # noqa: E402

BLUE, GREEN, MAGENTA = 0xff2040c0, 0xff20a040, 0xffe020c0
ICON = 24


class Dragger:
    """A client with a window to press on, a wl_data_device and an icon surface for its drags."""

    def __init__(self, conn):
        self.conn = conn
        self.input = Input(conn)
        self.devices = conn.bind("wl_data_device_manager", 3)
        self.device = conn.create("wl_data_device", self.devices, 1, ("o", self.input.seat))
        self.compositor = conn.bind("wl_compositor", 4)
        self.output = conn.bind("wl_output", 3)  # wl_surface.enter names a wl_output the client has
        self.window = Window(conn)
        self.window.show(200, 150, BLUE)

    def source(self):
        source = self.conn.create("wl_data_source", self.devices, 0)
        self.conn.send(source, 0, ("s", "text/plain"))  # offer
        self.conn.send(source, 2, ("u", 1))             # set_actions: copy
        return source

    def start_drag(self, source, icon, serial):
        self.conn.send(self.device, 0, ("o", source), ("o", self.window.surface), ("o", icon), ("u", serial))
        self.conn.roundtrip()

    def draw_icon(self, icon, dx, dy):
        """Attaches a magenta buffer to the icon, moved by dx, dy (wl_surface.attach's x, y), and commits with a
        frame callback; returns the callback."""
        conn = self.conn
        conn.send(icon, 1, ("o", shm_buffer(conn, ICON, ICON, MAGENTA)), ("i", dx), ("i", dy))
        conn.send(icon, 2, ("i", 0), ("i", 0), ("i", ICON), ("i", ICON))
        callback = conn.create("wl_callback", icon, 3)  # frame
        conn.send(icon, 6)
        conn.roundtrip()
        return callback


class Target:
    """A second client's window with a wl_data_device of its own: where the drag goes."""

    def __init__(self, conn):
        self.conn = conn
        seat = conn.bind("wl_seat", 5)
        devices = conn.bind("wl_data_device_manager", 3)
        self.device = conn.create("wl_data_device", devices, 1, ("o", seat))
        self.window = Window(conn)
        self.window.show(320, 240, GREEN)

    def heard(self, opcode, signature):
        """The arguments of each wl_data_device event with `opcode` so far (after a round trip)."""
        self.conn.roundtrip()
        return [e.args(signature) for e in self.conn.events if e.obj == self.device and e.opcode == opcode]


def icon_at(kiln, pointer, offset, what):
    x, y = pointer[0] + offset[0], pointer[1] + offset[1]
    wait_box(kiln, MAGENTA, (x, y, x + ICON, y + ICON), f"{what}: the icon at the pointer {pointer} plus {offset}")


def outside(point, box, margin):
    x, y = point
    return not (box[0] - margin <= x < box[2] + margin and box[1] - margin <= y < box[3] + margin)


def main():
    need("grim")
    with Kiln() as kiln, Connection(kiln.client_env) as target_conn, Connection(kiln.client_env) as conn:
        target = Target(target_conn)
        green = wait_box(kiln, GREEN, "shown", "the second client's window is shown")
        d = Dragger(conn)
        blue = wait_box(kiln, BLUE, "shown", "the dragging client's window is shown, in front")
        # Points on the green window with room for the icon around them, clear of the blue window.
        spots = [(x, y) for y in range(green[1] + 30, green[3] - 30, 10)
                 for x in range(green[0] + 30, green[2] - 30, 10) if outside((x, y), blue, 30)]
        check(len(spots) >= 2, f"the green window {green} shows beside the blue one {blue}")
        first, second = spots[0], spots[-1]

        d.input.move_to((blue[0] + blue[2]) // 2, (blue[1] + blue[3]) // 2)
        serial = d.input.press()
        icon = conn.create("wl_surface", d.compositor, 0)
        source = d.source()
        d.start_drag(source, icon, serial)
        frame = d.draw_icon(icon, -10, -6)
        d.input.move_to(*first)
        icon_at(kiln, first, (-10, -6), "drawn after start_drag with attach -10,-6")
        conn.dispatch_until(lambda e: e.obj == frame and e.opcode == 0)
        check(True, "the icon surface gets its frame callback")
        entered = conn.dispatch_until(lambda e: e.obj == icon and e.opcode == 0)
        check(entered.args("o")[0] == d.output, "and wl_surface.enter for the output")

        # The icon is under the pointer, but the drag enters the window under it, at the pointer.
        enters = target.heard(1, "uoffo")
        gx, gy = first[0] - green[0], first[1] - green[1]
        check(enters and enters[-1][1] == target.window.surface and (enters[-1][2], enters[-1][3]) == (gx, gy),
              f"the second client's wl_data_device hears enter on its window at {gx},{gy} ({enters})")
        own = [e.args("uoffo")[1] for e in conn.events if e.obj == d.device and e.opcode == 1]
        check(icon not in own, f"the dragging client's drag never enters its icon (entered {own}, the icon is {icon})")

        d.input.move_to(*second)
        icon_at(kiln, second, (-10, -6), "the pointer moved: the icon follows")
        motions = target.heard(3, "uff")
        sx, sy = second[0] - green[0], second[1] - green[1]
        check(motions and (motions[-1][1], motions[-1][2]) == (sx, sy),
              f"and the second client's wl_data_device hears motion to {sx},{sy} ({motions[-1:]})")
        check(len(target.heard(1, "uoffo")) == len(enters), "with no new enter: it never left for the icon")

        # A new buffer attached at 4,2 moves the icon by that: the offsets add up, as wl_surface.attach says.
        d.draw_icon(icon, 4, 2)
        icon_at(kiln, second, (-6, -4), "a second attach at 4,2")

        d.input.button(False)
        conn.dispatch_until(lambda e: e.obj == source and e.opcode == 2)
        wait_box(kiln, MAGENTA, None, "released (no target accepted: the source is told cancelled): the icon is gone")

        # A second drag whose icon surface is destroyed while it runs: the icon goes, the drag and kiln go on.
        d.input.move_to((blue[0] + blue[2]) // 2, (blue[1] + blue[3]) // 2)
        serial = d.input.press()
        icon = conn.create("wl_surface", d.compositor, 0)
        source = d.source()
        d.start_drag(source, icon, serial)
        d.draw_icon(icon, 0, 0)
        d.input.move_to(*first)
        icon_at(kiln, first, (0, 0), "a second drag, its icon attached at 0,0")
        conn.send(icon, 0)  # destroy
        conn.roundtrip()
        wait_box(kiln, MAGENTA, None, "its icon surface destroyed mid-drag: gone from the screen")
        d.input.move_to(*second)
        d.input.button(False)
        conn.dispatch_until(lambda e: e.obj == source and e.opcode == 2)
        check(kiln.alive(), "the drag ran on to its end, and kiln runs on")


run_test(main)
