#!/usr/bin/env python3
"""xdg-toplevel-drag-v1: a client presses on its own window, starts a wl_data_device drag with a toplevel drag object
and attaches a second toplevel with an offset, as a browser dragging a tab out does. While the virtual pointer moves,
the attached window's pixels and its `kiln msg` geometry are at the pointer less the offset, both for a window mapped
before the drag and for one attached before its first commit (it maps where the pointer is); dropped (the client
accepts the offer, the source is told dnd_drop_performed) it stays there, in front and focused, and the next pointer
motion moves nothing. The carried window is no drop target (the XML): the drag enters the window under it. A window
unmapped or destroyed mid-drag is let go, and the drag goes on until it is cancelled. Each error of the XML
(invalid_source: a source with a toplevel drag already, the selection, set_selection after; toplevel_attached: a second
toplevel, a toplevel of another drag; ongoing_drag) reaches its client as that protocol error on the named object,
while kiln and a second client run on."""
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, kiln_binary, need, run_test, stat  # noqa: E402
from wayland_wire import Connection, expect_protocol_error  # noqa: E402
from xdg_shell_client import Input, Window, box_on, wait_box  # noqa: E402

BLUE, RED, GREEN, GREY = 0xff2040c0, 0xffc02020, 0xff20a040, 0xff808080
INVALID_SOURCE, TOPLEVEL_ATTACHED, ONGOING_DRAG = 0, 0, 1


def kiln_windows(kiln):
    result = subprocess.run([kiln_binary(), "msg", "windows"], env=kiln.client_env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, timeout=20)
    check(result.returncode == 0, f"kiln msg windows answers ({result.stderr.strip()})")
    return json.loads(result.stdout)["windows"]


def kiln_window(kiln, width, height):
    """The one window `kiln msg windows` lists with this size."""
    found = [w for w in kiln_windows(kiln) if (w["width"], w["height"]) == (width, height)]
    check(len(found) == 1, f"kiln msg lists one {width}x{height} window ({found})")
    return found[0]


class Dragger:
    """A client with a window of its own to press on, a wl_data_device and xdg_toplevel_drag_manager_v1."""

    def __init__(self, conn):
        self.conn = conn
        self.input = Input(conn)
        self.devices = conn.bind("wl_data_device_manager", 3)
        self.device = conn.create("wl_data_device", self.devices, 1, ("o", self.input.seat))
        self.manager = conn.bind("xdg_toplevel_drag_manager_v1", 1)

    def source(self):
        source = self.conn.create("wl_data_source", self.devices, 0)
        self.conn.send(source, 0, ("s", "text/plain"))  # offer
        self.conn.send(source, 2, ("u", 1))             # set_actions: copy
        return source

    def toplevel_drag(self, source):
        return self.conn.create("xdg_toplevel_drag_v1", self.manager, 1, ("o", source))

    def attach(self, drag, window, dx, dy):
        self.conn.send(drag, 1, ("o", window.toplevel), ("i", dx), ("i", dy))

    def start_drag(self, source, origin, serial):
        """wl_data_device.start_drag from the window `origin` pressed on with `serial`, no icon."""
        self.conn.send(self.device, 0, ("o", source), ("o", origin.surface), ("o", 0), ("u", serial))
        self.conn.roundtrip()


def window(conn, size, color):
    w = Window(conn)
    w.show(*size, color)
    return w


def expect_box(kiln, color, size, at, what):
    x, y = at
    wait_box(kiln, color, (x, y, x + size[0], y + size[1]), what)
    listed = kiln_window(kiln, *size)
    check((listed["x"], listed["y"]) == (x, y), f"and kiln msg has it at {x},{y} ({listed['x']},{listed['y']})")


def press_on(dragger, kiln, color):
    """Moves the pointer into the middle of the window of `color` and presses there; returns the press serial."""
    x0, y0, x1, y1 = wait_box(kiln, color, "shown", "the window to press on is shown")
    dragger.input.move_to((x0 + x1) // 2, (y0 + y1) // 2)
    return dragger.input.press()


def drag_a_mapped_window():
    with Kiln() as kiln, Connection(kiln.client_env) as conn:
        d = Dragger(conn)
        blue = window(conn, (200, 150), BLUE)
        red_size = (120, 90)
        red = window(conn, red_size, RED)
        wait_box(kiln, RED, "shown", "the window to drag is mapped")
        serial = press_on(d, kiln, BLUE)
        source = d.source()
        drag = d.toplevel_drag(source)
        d.attach(drag, red, 30, 20)
        d.start_drag(source, blue, serial)
        for x, y in ((400, 300), (250, 330), (300, 250)):
            d.input.move_to(x, y)
            expect_box(kiln, RED, red_size, (x - 30, y - 20), f"pointer at {x},{y}: the red window at the pointer "
                       f"less its offset 30,20")
        # The carried window is no drop target: the pointer is on it, and the drag enters the blue window under it.
        enters = [e.args("uoffo") for e in conn.events if e.obj == d.device and e.opcode == 1]
        check(enters and enters[-1][1] == blue.surface and red.surface not in [e[1] for e in enters],
              f"the drag enters the window under the carried one, never the carried one (entered "
              f"{[e[1] for e in enters]}; blue {blue.surface}, red {red.surface})")
        # The client takes the drop there: it accepts the offer of the last wl_data_device.enter.
        enter_serial, _, _, _, offer = enters[-1]
        conn.send(offer, 0, ("u", enter_serial), ("s", "text/plain"))  # accept
        conn.send(offer, 4, ("u", 1), ("u", 1))                         # set_actions: copy, preferring copy
        conn.roundtrip()
        d.input.button(False)
        conn.dispatch_until(lambda e: e.obj == source and e.opcode == 3)
        check(True, "released over an accepting target: the source is told dnd_drop_performed")
        d.input.move_to(100, 80)
        expect_box(kiln, RED, red_size, (270, 230), "released: the pointer moved on and the window stayed")
        check(d.input.focused() == red.surface, "the dropped window has the keyboard")
        listed = kiln_window(kiln, *red_size)
        check(listed["focused"], f"kiln msg: the dropped window is focused ({listed})")
        # A normal window again: a press elsewhere and motion move nothing, destroying its drag object is allowed.
        conn.send(drag, 0)
        conn.roundtrip()
        check(box_on(kiln, RED) == (270, 230, 390, 320), "its drag object destroyed after the drag: nothing moves")
        status, stats = kiln.stop()
        check(stat(stats, "toplevel_drags.started") == 1, f"one toplevel drag started (stats "
              f"{stat(stats, 'toplevel_drags.started')})")


def attach_before_first_commit():
    with Kiln() as kiln, Connection(kiln.client_env) as conn:
        d = Dragger(conn)
        blue = window(conn, (200, 150), BLUE)
        serial = press_on(d, kiln, BLUE)
        source = d.source()
        drag = d.toplevel_drag(source)
        d.start_drag(source, blue, serial)
        d.input.move_to(420, 260)
        # The tab leaves the window: a new toplevel, attached before its first commit, then mapped.
        green_size = (160, 100)
        green = Window(conn)
        d.attach(drag, green, 40, 10)
        green.show(*green_size, GREEN)
        expect_box(kiln, GREEN, green_size, (380, 250), "attached before its first commit, it maps at the pointer "
                   "less its offset 40,10")
        d.input.move_to(300, 350)
        expect_box(kiln, GREEN, green_size, (260, 340), "and follows the pointer")
        # Unmapped mid-drag it is let go: mapped again it stays where kiln puts it, however the pointer moves.
        green.settle()
        green.unmap()
        green.show(*green_size, GREEN)
        placed = wait_box(kiln, GREEN, "shown", "unmapped and mapped again mid-drag")
        d.input.move_to(200, 200)
        check(box_on(kiln, GREEN) == placed, f"and no longer follows the pointer ({box_on(kiln, GREEN)})")
        # Attached again: it follows again; then destroyed mid-drag, the drag goes on and kiln too.
        d.attach(drag, green, 0, 0)
        d.input.move_to(210, 220)
        expect_box(kiln, GREEN, green_size, (210, 220), "attached again, it follows")
        conn.send(green.toplevel, 0)
        conn.send(green.xdg_surface, 0)
        conn.roundtrip()
        d.input.move_to(230, 240)
        wait_box(kiln, GREEN, None, "destroyed mid-drag: gone")
        d.input.button(False)
        conn.dispatch_until(lambda e: e.obj == source and e.opcode == 2)
        check(kiln.alive(), "released with no target accepting: the source is told cancelled, and kiln runs on")


def expect_error(kiln, observer, what, build, interface, code, words):
    """On a fresh client, `build(conn, dragger)` sends requests that must be refused; returns nothing."""
    with Connection(kiln.client_env) as conn:
        d = Dragger(conn)
        target = build(conn, d)
        got = expect_protocol_error(conn)
        check(f"on {interface}@{target}: {code} " in str(got) and words in str(got), f"{what} ({got})")
    observer.roundtrip()
    check(kiln.alive(), "kiln runs on, and the other client too")


def keyboard_serial(conn, d, color):
    """Maps a window of `color` and returns the serial of the keyboard enter it gets."""
    w = window(conn, (100, 80), color)
    enter = conn.dispatch_until(lambda e: e.obj == d.input.keyboard and e.opcode == 1 and
                                e.args("uo")[1] == w.surface)
    return enter.args("u")[0]


def errors():
    with Kiln() as kiln, Connection(kiln.client_env) as observer:
        window(observer, (80, 60), GREY)

        def twice(conn, d):
            source = d.source()
            d.toplevel_drag(source)
            d.toplevel_drag(source)
            return d.manager
        expect_error(kiln, observer, "a second toplevel drag for one source is invalid_source", twice,
                     "xdg_toplevel_drag_manager_v1", INVALID_SOURCE, "already")

        def selection_then_drag(conn, d):
            serial = keyboard_serial(conn, d, RED)
            source = d.source()
            conn.send(d.device, 1, ("o", source), ("u", serial))  # set_selection
            d.toplevel_drag(source)
            return d.manager
        expect_error(kiln, observer, "the selection's source for a toplevel drag is invalid_source",
                     selection_then_drag, "xdg_toplevel_drag_manager_v1", INVALID_SOURCE, "selection")

        def drag_then_selection(conn, d):
            serial = keyboard_serial(conn, d, RED)
            source = d.source()
            d.toplevel_drag(source)
            conn.send(d.device, 1, ("o", source), ("u", serial))  # set_selection
            return d.manager
        expect_error(kiln, observer, "set_selection with a toplevel drag's source is invalid_source",
                     drag_then_selection, "xdg_toplevel_drag_manager_v1", INVALID_SOURCE, "set_selection")

        def two_toplevels(conn, d):
            a, b = window(conn, (100, 80), RED), window(conn, (90, 70), GREEN)
            drag = d.toplevel_drag(d.source())
            d.attach(drag, a, 0, 0)
            d.attach(drag, b, 0, 0)
            return drag
        expect_error(kiln, observer, "a second toplevel on one drag is toplevel_attached", two_toplevels,
                     "xdg_toplevel_drag_v1", TOPLEVEL_ATTACHED, "attached")

        def one_toplevel_two_drags(conn, d):
            a = window(conn, (100, 80), RED)
            first, second = d.toplevel_drag(d.source()), d.toplevel_drag(d.source())
            d.attach(first, a, 0, 0)
            d.attach(second, a, 0, 0)
            return second
        expect_error(kiln, observer, "a toplevel attached to another drag is toplevel_attached",
                     one_toplevel_two_drags, "xdg_toplevel_drag_v1", TOPLEVEL_ATTACHED, "another drag")

        def destroy_mid_drag(conn, d):
            origin = window(conn, (300, 220), BLUE)
            serial = press_on(d, kiln, BLUE)
            source = d.source()
            drag = d.toplevel_drag(source)
            d.attach(drag, window(conn, (100, 80), RED), 5, 5)
            d.start_drag(source, origin, serial)
            conn.send(drag, 0)  # destroy while the drag runs
            return drag
        expect_error(kiln, observer, "destroying a toplevel drag while its drag runs is ongoing_drag",
                     destroy_mid_drag, "xdg_toplevel_drag_v1", ONGOING_DRAG, "drag runs")

        # Allowed: the same toplevel attached twice (a new offset), destroying the drag object before its drag starts.
        with Connection(kiln.client_env) as conn:
            d = Dragger(conn)
            drag = d.toplevel_drag(d.source())
            a = window(conn, (100, 80), RED)
            d.attach(drag, a, 0, 0)
            d.attach(drag, a, 10, 10)
            conn.send(drag, 0)
            conn.roundtrip()
            check(True, "attaching the same toplevel again and destroying the drag object before its drag are fine")


def main():
    need("grim")
    drag_a_mapped_window()
    attach_before_first_commit()
    errors()


run_test(main)
