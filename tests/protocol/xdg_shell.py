#!/usr/bin/env python3
"""xdg-shell on headless kiln (640x480): maximize, fullscreen and minimize with their configure sizes, placement of
new windows and dialogs, popups kept inside the output (flip, slide, resize) and dismissed by a click outside,
interactive move and resize by request with a valid serial (and not with a forged or stale one), pings, and keyboard
focus going back to the previous window. Bad input: impossible positioners, bad resize edges, forged serials."""
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, ProtocolError, Toplevel, shm_buffer  # noqa: E402

OUTPUT_W, OUTPUT_H = 640, 480
BTN_LEFT = 0x110
MAXIMIZED, FULLSCREEN, RESIZING, ACTIVATED = 1, 2, 3, 4
# xdg_positioner anchor and gravity values, and constraint adjustments.
TOP_LEFT, BOTTOM_LEFT, TOP_RIGHT, BOTTOM_RIGHT = 5, 6, 7, 8
SLIDE_X, SLIDE_Y, FLIP_X, FLIP_Y, RESIZE_X, RESIZE_Y = 1, 2, 4, 8, 16, 32
EDGE_BOTTOM_RIGHT, EDGE_LEFT = 10, 4


def u32s(data):
    return [int.from_bytes(data[i:i + 4], sys.byteorder) for i in range(0, len(data), 4)]


class Window(Toplevel):
    """A toplevel that records its configures: next_configure() returns (width, height, states) and acks it."""

    def next_configure(self):
        conn = self.conn
        event = conn.dispatch_until(lambda e: e.obj == self.xdg_surface and e.opcode == 0)
        conn.events.remove(event)
        configures = conn.take(self.toplevel, 0)
        width, height, states = configures[-1].args("iia") if configures else (0, 0, b"")
        conn.send(self.xdg_surface, 4, ("u", event.args("u")[0]))  # ack_configure
        return width, height, set(u32s(states))

    def settle(self):
        """Acks whatever configures are on their way (focus changes send some after a map)."""
        self.conn.roundtrip()
        self.conn.roundtrip()
        configures = [e for e in self.conn.events if e.obj == self.xdg_surface and e.opcode == 0]
        for event in configures:
            self.conn.events.remove(event)
        if configures:
            self.conn.send(self.xdg_surface, 4, ("u", configures[-1].args("u")[0]))
        self.conn.take(self.toplevel, 0)

    def configure_until(self, predicate, what):
        """Acks configures until one (width, height, states) satisfies predicate; returns it."""
        seen = []
        try:
            while True:
                configure = self.next_configure()
                seen.append(configure)
                if predicate(*configure):
                    return configure
        except ProtocolError:
            raise AssertionError(f"{what}: no such configure came (got {seen})")

    def draw(self, width, height, color, geometry=None, inner=None):
        buffer = shm_buffer(self.conn, width, height, color, inner=inner)
        if geometry:
            self.conn.send(self.xdg_surface, 3, *[("i", v) for v in geometry])  # set_window_geometry
        self.conn.send(self.surface, 1, ("o", buffer), ("i", 0), ("i", 0))
        self.conn.send(self.surface, 2, ("i", 0), ("i", 0), ("i", width), ("i", height))
        self.commit()
        self.conn.roundtrip()

    def show(self, width, height, color, **kwargs):
        """Initial commit, first configure, then a buffer: the window maps. Returns the first configure."""
        self.commit()
        first = self.next_configure()
        self.draw(width, height, color, **kwargs)
        return first

    def unmap(self):
        self.conn.send(self.surface, 1, ("o", 0), ("i", 0), ("i", 0))
        self.commit()
        self.conn.roundtrip()


def rgb_of(color):
    return (color >> 16) & 0xff, (color >> 8) & 0xff, color & 0xff


def box_of(shot, color):
    """The exact bounding box (x0, y0, x1, y1) of an exact colour in a screenshot, or None (a fast row scan)."""
    pattern = bytes(rgb_of(color))
    row_bytes = shot.width * 3
    x0 = y0 = x1 = y1 = None
    for y in range(shot.height):
        row = shot.pixels[y * row_bytes:(y + 1) * row_bytes]
        first = row.find(pattern)
        while first != -1 and first % 3:
            first = row.find(pattern, first + 1)
        if first == -1:
            continue
        last = row.rfind(pattern)
        while last != -1 and last % 3:
            last = row.rfind(pattern, 0, last + 2)
        x0 = first // 3 if x0 is None else min(x0, first // 3)
        x1 = last // 3 + 1 if x1 is None else max(x1, last // 3 + 1)
        y0 = y if y0 is None else y0
        y1 = y + 1
    return None if x0 is None else (x0, y0, x1, y1)


def wait_box(kiln, color, expected, what):
    """Waits until the colour's bounding box on screen is `expected` (None: not on screen); returns it."""
    last = []

    def matches():
        last[:] = [box_of(kiln.screenshot(), color)]
        return last[0] == expected

    try:
        kiln.wait_for(matches, what, timeout=10, interval=0.05)
    except AssertionError:
        raise AssertionError(f"{what}: expected {expected}, on screen {last[0] if last else None}")
    check(True, f"{what}: {expected}")


def wait_box_sized(kiln, color, width, height, what):
    """Waits until the colour is on screen, whole, as a width x height box; returns the box."""
    found = []

    def whole():
        box = box_of(kiln.screenshot(), color)
        found[:] = [box]
        return box is not None and box[2] - box[0] == width and box[3] - box[1] == height

    try:
        kiln.wait_for(whole, what, timeout=10, interval=0.05)
    except AssertionError:
        raise AssertionError(f"{what}: expected a whole {width}x{height} box, on screen {found[0] if found else None}")
    return found[0]


class Input:
    """A virtual pointer and the client's wl_pointer and wl_keyboard on one connection."""

    def __init__(self, conn):
        self.conn = conn
        self.seat = conn.bind("wl_seat", 5)
        self.pointer = conn.create("wl_pointer", self.seat, 0)
        self.keyboard = conn.create("wl_keyboard", self.seat, 1)
        manager = conn.bind("zwlr_virtual_pointer_manager_v1", 1)
        self.virtual = conn.new_id("zwlr_virtual_pointer_v1")
        conn.send(manager, 0, ("o", self.seat), ("n", self.virtual))
        self.time = 1

    def _tick(self):
        self.time += 1
        return ("u", self.time)

    def move_to(self, x, y):
        self.conn.send(self.virtual, 1, self._tick(), ("u", x), ("u", y), ("u", OUTPUT_W), ("u", OUTPUT_H))
        self.conn.send(self.virtual, 4)
        self.conn.roundtrip()

    def move_by(self, dx, dy):
        self.conn.send(self.virtual, 0, self._tick(), ("f", float(dx)), ("f", float(dy)))
        self.conn.send(self.virtual, 4)
        self.conn.roundtrip()

    def button(self, pressed):
        self.conn.send(self.virtual, 2, self._tick(), ("u", BTN_LEFT), ("u", 1 if pressed else 0))
        self.conn.send(self.virtual, 4)
        self.conn.roundtrip()

    def press(self):
        """Presses the left button over a window of this client; returns the press's serial."""
        self.conn.take(self.pointer, 3)
        self.button(True)
        event = self.conn.dispatch_until(lambda e: e.obj == self.pointer and e.opcode == 3 and e.args("uuuu")[3] == 1)
        self.conn.events.remove(event)
        return event.args("u")[0]

    def focused(self):
        """The surface the last keyboard enter named (after a round trip)."""
        self.conn.roundtrip()
        enters = [e.args("uo")[1] for e in self.conn.events if e.obj == self.keyboard and e.opcode == 1]
        return enters[-1] if enters else None

    def close(self):
        for event in self.conn.take(self.keyboard, 0):
            for fd in event.fds:
                os.close(fd)


def wait_listening(kiln):
    with Connection(kiln.client_env) as conn:
        conn.roundtrip()


# --- maximize, fullscreen, minimize -------------------------------------------------------------------------------

def maximize_and_fullscreen(kiln):
    with Connection(kiln.client_env) as conn:
        seat_input = Input(conn)
        window = Window(conn, "maximize")
        width, height, _ = window.show(200, 150, 0xff2040c0)
        check((width, height) == (0, 0), f"the first configure leaves the size to the client ({width}x{height})")
        home = wait_box_sized(kiln, 0xff2040c0, 200, 150, "the window is on screen")
        window.settle()

        conn.send(window.toplevel, 9)  # set_maximized
        width, height, states = window.next_configure()
        check((width, height) == (OUTPUT_W, OUTPUT_H) and MAXIMIZED in states,
              f"set_maximized: a configure with the output's usable area and the maximized state "
              f"({width}x{height}, states {sorted(states)})")
        window.draw(width, height, 0xff2040c0)
        wait_box(kiln, 0xff2040c0, (0, 0, OUTPUT_W, OUTPUT_H), "the maximized window covers the output")

        conn.send(window.toplevel, 10)  # unset_maximized
        width, height, states = window.next_configure()
        check((width, height) == (200, 150) and MAXIMIZED not in states,
              f"unset_maximized: the size from before comes back ({width}x{height}, states {sorted(states)})")
        window.draw(width, height, 0xff2040c0)
        wait_box(kiln, 0xff2040c0, home, "and the window goes back where it was")

        conn.send(window.toplevel, 11, ("o", 0))  # set_fullscreen, no output named
        width, height, states = window.next_configure()
        check((width, height) == (OUTPUT_W, OUTPUT_H) and FULLSCREEN in states,
              f"set_fullscreen: a configure with the output's size and the fullscreen state "
              f"({width}x{height}, states {sorted(states)})")
        window.draw(width, height, 0xffc02020)

        # A window that maps while another is fullscreen opens below it and does not take focus.
        other = Window(conn, "under the fullscreen one")
        other.show(200, 150, 0xff20c040)
        wait_box(kiln, 0xffc02020, (0, 0, OUTPUT_W, OUTPUT_H), "the fullscreen window covers the output")
        wait_box(kiln, 0xff20c040, None, "a window mapped later stays below the fullscreen one")
        check(seat_input.focused() == window.surface, "and the fullscreen window keeps keyboard focus")
        dialog = Window(conn, "dialog of the fullscreen one")
        conn.send(dialog.toplevel, 1, ("o", window.toplevel))  # set_parent
        dialog.show(100, 80, 0xffe0e0e0)
        x, y = (OUTPUT_W - 100) // 2, (OUTPUT_H - 80) // 2
        wait_box(kiln, 0xffe0e0e0, (x, y, x + 100, y + 80), "its dialog opens above it, centred on it")
        check(seat_input.focused() == dialog.surface, "with keyboard focus")
        dialog.unmap()
        check(seat_input.focused() == window.surface, "when the dialog unmaps, focus goes back to the fullscreen one")

        window.settle()
        conn.send(window.toplevel, 12)  # unset_fullscreen
        width, height, states = window.next_configure()
        check((width, height) == (200, 150) and FULLSCREEN not in states,
              f"unset_fullscreen restores the size ({width}x{height}, states {sorted(states)})")
        window.draw(width, height, 0xff2040c0)
        wait_box(kiln, 0xff2040c0, home, "and the place")
        seat_input.close()


def maximized_from_the_start(kiln):
    with Connection(kiln.client_env) as conn:
        window = Window(conn, "maximized from the start")
        conn.send(window.toplevel, 9)  # set_maximized before the initial commit (foot --maximized)
        window.commit()
        # wlroots 0.15 answers set_maximized with a configure of its own, which may go out before the initial
        # commit is read; the configure kiln sends for the initial commit is maximized.
        width, height, states = window.configure_until(lambda w, h, s: MAXIMIZED in s, "a maximized configure")
        check((width, height) == (OUTPUT_W, OUTPUT_H),
              f"set_maximized before the first commit: the initial configure is maximized ({width}x{height})")
        window.draw(OUTPUT_W, OUTPUT_H, 0xff806020)
        wait_box(kiln, 0xff806020, (0, 0, OUTPUT_W, OUTPUT_H), "and the window covers the output")
        window.settle()
        conn.send(window.toplevel, 10)
        width, height, states = window.next_configure()
        check((width, height) == (0, 0) and MAXIMIZED not in states,
              f"unmaximized, a window that never had a size of its own picks one ({width}x{height})")
        window.draw(300, 200, 0xff806020)
        box = wait_box_sized(kiln, 0xff806020, 300, 200, "and is placed whole on the output")
        check(box[0] >= 0 and box[1] >= 0 and box[2] <= OUTPUT_W and box[3] <= OUTPUT_H, f"inside it ({box})")


def minimize_and_focus_order(kiln):
    with Connection(kiln.client_env) as conn:
        seat_input = Input(conn)
        colors = {"a": 0xff3050a0, "b": 0xff50a030, "c": 0xffa03050}
        windows = {}
        for name, color in colors.items():
            windows[name] = Window(conn, name)
            windows[name].show(160, 120, color)
            wait_box_sized(kiln, color, 160, 120, f"window {name} is on screen")
        check(seat_input.focused() == windows["c"].surface, "the last window mapped has keyboard focus")

        conn.send(windows["c"].toplevel, 13)  # set_minimized
        wait_box(kiln, colors["c"], None, "a minimized window is hidden")
        check(seat_input.focused() == windows["b"].surface, "and focus goes to the window focused before it")

        windows["b"].unmap()
        check(seat_input.focused() == windows["a"].surface, "when the focused window unmaps, focus goes back to a")

        # A taskbar activates the minimized window: it shows again with focus.
        manager = conn.bind("zwlr_foreign_toplevel_manager_v1", 3)
        conn.roundtrip()
        handles = {}
        for event in conn.take(manager, 0):
            handle = event.args("n")[0]
            conn.interfaces[handle] = "zwlr_foreign_toplevel_handle_v1"
            conn.dispatch_until(lambda e: e.obj == handle and e.opcode == 5)  # done
            handles[[e.args("s")[0] for e in conn.events if e.obj == handle and e.opcode == 0][-1]] = handle
        def handle_states(name):
            events = [e for e in conn.events if e.obj == handles[name] and e.opcode == 4]
            return set(u32s(events[-1].args("a")[0])) if events else set()

        HANDLE_MAXIMIZED, HANDLE_MINIMIZED = 0, 1
        check(HANDLE_MINIMIZED in handle_states("c") and HANDLE_MINIMIZED not in handle_states("a"),
              "a taskbar sees the minimized window as minimized")
        conn.send(handles["c"], 4, ("o", seat_input.seat))  # activate
        wait_box_sized(kiln, colors["c"], 160, 120, "activating the minimized window shows it")
        check(seat_input.focused() == windows["c"].surface, "with keyboard focus")
        conn.roundtrip()
        check(HANDLE_MINIMIZED not in handle_states("c"), "and the taskbar sees it is no longer minimized")

        # A taskbar may maximize and minimize windows too.
        windows["a"].settle()
        conn.send(handles["a"], 0)  # set_maximized
        width, height, states = windows["a"].next_configure()
        check((width, height) == (OUTPUT_W, OUTPUT_H) and MAXIMIZED in states,
              f"a taskbar's set_maximized maximizes the window ({width}x{height}, states {sorted(states)})")
        conn.roundtrip()
        check(HANDLE_MAXIMIZED in handle_states("a"), "and its handle says so")
        conn.send(handles["c"], 2)  # set_minimized
        wait_box(kiln, colors["c"], None, "a taskbar's set_minimized hides the window")
        conn.roundtrip()
        check(HANDLE_MINIMIZED in handle_states("c"), "and its handle says so")
        seat_input.close()


# --- placement ----------------------------------------------------------------------------------------------------

def placement_of_twenty(kiln):
    with Connection(kiln.client_env) as conn:
        spots = []
        for i in range(20):
            color = 0xff000000 | (0x10 + i * 9) << 16 | (0xf0 - i * 7) << 8 | 0x40 + i * 5
            window = Window(conn, f"window {i}")
            window.show(200, 150, color)
            box = wait_box_sized(kiln, color, 200, 150, f"window {i} is on screen, whole")
            inside = box[0] >= 0 and box[1] >= 0 and box[2] <= OUTPUT_W and box[3] <= OUTPUT_H
            check(inside and (box[0], box[1]) not in spots,
                  f"window {i} opens inside the output at {box[:2]}, where no other window opened")
            spots.append((box[0], box[1]))
        check(spots[0] == ((OUTPUT_W - 200) // 2, (OUTPUT_H - 150) // 2), f"the first one is centred ({spots[0]})")


def window_geometry_placement(kiln):
    with Connection(kiln.client_env) as conn:
        window = Window(conn, "with a shadow")
        # A 240x190 buffer whose window is the 200x150 inside a 20-pixel shadow.
        window.show(240, 190, 0xff101010, geometry=(20, 20, 200, 150), inner=(20, 20, 200, 150, 0xff40a0e0))
        x, y = (OUTPUT_W - 200) // 2, (OUTPUT_H - 150) // 2
        wait_box(kiln, 0xff40a0e0, (x, y, x + 200, y + 150),
                 "the window geometry, not the buffer with its shadow, is what is centred")


def larger_than_the_output(kiln):
    with Connection(kiln.client_env) as conn:
        window = Window(conn, "too large")
        window.show(900, 700, 0xffe0a020)
        width, height, _ = window.next_configure()
        check((width, height) == (OUTPUT_W, OUTPUT_H),
              f"a 900x700 window on a 640x480 output is asked to be {width}x{height}")
        window.draw(width, height, 0xffe0a020)
        wait_box(kiln, 0xffe0a020, (0, 0, OUTPUT_W, OUTPUT_H), "and once it is, it lies inside the output")


def dialog_on_parent(kiln):
    with Connection(kiln.client_env) as conn:
        first = Window(conn, "first")
        first.show(300, 200, 0xff204060)
        parent = Window(conn, "parent")
        parent.show(300, 200, 0xff602040)
        box = wait_box_sized(kiln, 0xff602040, 300, 200, "the parent is on screen")
        dialog = Window(conn, "dialog")
        conn.send(dialog.toplevel, 1, ("o", parent.toplevel))  # set_parent
        dialog.show(100, 80, 0xff40e060)
        x, y = box[0] + 100, box[1] + 60
        wait_box(kiln, 0xff40e060, (x, y, x + 100, y + 80), "a dialog opens centred on its parent")


# --- interactive move and resize ----------------------------------------------------------------------------------

def move_by_request(kiln):
    with Connection(kiln.client_env) as conn:
        seat_input = Input(conn)
        window = Window(conn, "move")
        window.show(200, 150, 0xff8020a0)
        x0, y0, x1, y1 = wait_box_sized(kiln, 0xff8020a0, 200, 150, "the window is on screen")
        seat_input.move_to(x0 + 100, y0 + 75)

        serial = seat_input.press()
        conn.send(window.toplevel, 5, ("o", seat_input.seat), ("u", serial + 1000))  # move, forged serial
        seat_input.move_by(60, 40)
        seat_input.button(False)
        wait_box(kiln, 0xff8020a0, (x0, y0, x1, y1), "move with a forged serial: the window stays")
        stale = seat_input.press()
        seat_input.button(False)
        conn.send(window.toplevel, 5, ("o", seat_input.seat), ("u", stale))  # the press is over: stale
        seat_input.move_by(-60, -40)
        wait_box(kiln, 0xff8020a0, (x0, y0, x1, y1), "move with the serial of a released press: the window stays")
        conn.take(seat_input.pointer)
        seat_input.press()
        seat_input.button(False)
        check(any(e.args("uuuu")[3] == 0 for e in conn.take(seat_input.pointer, 3)),
              "no grab was left behind: the window still gets its clicks")

        serial = seat_input.press()
        conn.send(window.toplevel, 5, ("o", seat_input.seat), ("u", serial))  # move, the held press's serial
        conn.roundtrip()
        seat_input.move_by(60, 40)
        wait_box(kiln, 0xff8020a0, (x0 + 60, y0 + 40, x1 + 60, y1 + 40),
                 "move with the serial of the held press: the window follows the pointer")
        check(any(e.opcode == 1 for e in conn.take(seat_input.pointer)), "the window got a pointer leave")
        seat_input.button(False)
        seat_input.move_by(30, 30)
        wait_box(kiln, 0xff8020a0, (x0 + 60, y0 + 40, x1 + 60, y1 + 40), "after the release it stays")
        seat_input.close()


def resize_by_request(kiln):
    with Connection(kiln.client_env) as conn:
        seat_input = Input(conn)
        window = Window(conn, "resize")
        conn.send(window.toplevel, 7, ("i", 240), ("i", 170))  # set_max_size
        window.show(200, 150, 0xff20a0a0)
        x0, y0, x1, y1 = wait_box_sized(kiln, 0xff20a0a0, 200, 150, "the window is on screen")
        window.settle()
        seat_input.move_to(x1 - 5, y1 - 5)
        serial = seat_input.press()
        conn.send(window.toplevel, 6, ("o", seat_input.seat), ("u", serial), ("u", EDGE_BOTTOM_RIGHT))
        conn.roundtrip()
        seat_input.move_by(20, 10)
        width, height, states = window.configure_until(lambda w, h, s: (w, h) != (200, 150), "a bigger size")
        check((width, height) == (220, 160) and RESIZING in states,
              f"dragging the bottom-right corner by (20, 10) asks for 220x160, resizing ({width}x{height}, "
              f"states {sorted(states)})")
        window.draw(width, height, 0xff20a0a0)
        seat_input.move_by(60, 60)
        width, height, _ = window.configure_until(lambda w, h, s: (w, h) != (220, 160), "a bigger size")
        check((width, height) == (240, 170), f"but no more than the maximum size 240x170 ({width}x{height})")
        window.draw(width, height, 0xff20a0a0)
        wait_box(kiln, 0xff20a0a0, (x0, y0, x0 + 240, y0 + 170), "the top-left corner stays put")
        seat_input.button(False)
        width, height, states = window.configure_until(lambda w, h, s: RESIZING not in s, "the end of the resize")
        check((width, height) == (240, 170), f"the release ends the resize at 240x170 ({width}x{height})")

        seat_input.move_to(x0 + 5, y0 + 50)
        serial = seat_input.press()
        conn.send(window.toplevel, 6, ("o", seat_input.seat), ("u", serial), ("u", EDGE_LEFT))
        conn.roundtrip()
        seat_input.move_by(30, 0)
        width, height, _ = window.configure_until(lambda w, h, s: (w, h) != (240, 170), "a narrower size")
        check((width, height) == (210, 170), f"dragging the left edge by 30 asks for 210x170 ({width}x{height})")
        window.draw(width, height, 0xff20a0a0)
        wait_box(kiln, 0xff20a0a0, (x0 + 30, y0, x0 + 240, y0 + 170), "and the right edge stays put")
        seat_input.button(False)
        seat_input.close()


# --- popups -------------------------------------------------------------------------------------------------------

def make_positioner(conn, wm_base, size, anchor_rect, anchor, gravity, adjustment):
    positioner = conn.create("xdg_positioner", wm_base, 1)
    conn.send(positioner, 1, ("i", size[0]), ("i", size[1]))
    conn.send(positioner, 2, *[("i", v) for v in anchor_rect])
    conn.send(positioner, 3, ("u", anchor))
    conn.send(positioner, 4, ("u", gravity))
    conn.send(positioner, 5, ("u", adjustment))
    return positioner


class Popup:
    def __init__(self, conn, wm_base, parent_xdg, positioner, grab=None):
        self.conn = conn
        compositor = conn.bind("wl_compositor", 4)
        self.surface = conn.create("wl_surface", compositor, 0)
        self.xdg_surface = conn.create("xdg_surface", wm_base, 2, ("o", self.surface))
        self.popup = conn.create("xdg_popup", self.xdg_surface, 2, ("o", parent_xdg), ("o", positioner))
        if grab:
            conn.send(self.popup, 1, ("o", grab[0]), ("u", grab[1]))
        conn.send(self.surface, 6)  # commit

    def configure(self):
        event = self.conn.dispatch_until(lambda e: e.obj == self.xdg_surface and e.opcode == 0)
        self.conn.events.remove(event)
        x, y, w, h = self.conn.take(self.popup, 0)[-1].args("iiii")
        self.conn.send(self.xdg_surface, 4, ("u", event.args("u")[0]))
        return x, y, w, h

    def draw(self, width, height, color):
        buffer = shm_buffer(self.conn, width, height, color)
        self.conn.send(self.surface, 1, ("o", buffer), ("i", 0), ("i", 0))
        self.conn.send(self.surface, 6)
        self.conn.roundtrip()

    def destroy(self):
        self.conn.send(self.popup, 0)
        self.conn.send(self.xdg_surface, 0)
        self.conn.roundtrip()


def popup_constraints(kiln):
    with Connection(kiln.client_env) as conn:
        window = Window(conn, "popup parent")
        window.show(200, 150, 0xff606060)
        wx, wy, _, _ = wait_box_sized(kiln, 0xff606060, 200, 150, "the parent is on screen")
        check((wx, wy) == (220, 165), f"the parent is centred ({wx}, {wy})")
        wm_base = window.wm_base
        cases = [
            # (what, size, anchor rect, anchor, gravity, adjustment, expected x, y, width, height)
            ("at the right edge, flip_x flips it to the left of its anchor",
             (300, 100), (190, 10, 10, 10), TOP_RIGHT, BOTTOM_RIGHT, FLIP_X | FLIP_Y, (-110, 10, 300, 100)),
            ("at the bottom edge, flip_y flips it above its anchor",
             (100, 200), (10, 140, 10, 10), BOTTOM_LEFT, BOTTOM_RIGHT, FLIP_X | FLIP_Y, (10, -60, 100, 200)),
            ("at the left edge, flip_x flips it to the right",
             (300, 100), (0, 10, 10, 10), TOP_LEFT, BOTTOM_LEFT, FLIP_X, (10, 10, 300, 100)),
            ("at the top edge, flip_y flips it below",
             (100, 200), (10, 0, 10, 10), TOP_LEFT, TOP_RIGHT, FLIP_Y, (10, 10, 100, 200)),
            ("at the right edge, slide_x slides it back inside",
             (300, 100), (190, 10, 10, 10), TOP_RIGHT, BOTTOM_RIGHT, SLIDE_X, (120, 10, 300, 100)),
            ("at the bottom edge, resize_y shortens it to fit",
             (100, 200), (10, 140, 10, 10), BOTTOM_LEFT, BOTTOM_RIGHT, RESIZE_Y, (10, 150, 100, 165)),
            ("inside the output it is left as the positioner put it",
             (50, 50), (10, 10, 10, 10), BOTTOM_RIGHT, BOTTOM_RIGHT, FLIP_X | FLIP_Y, (20, 20, 50, 50)),
        ]
        for what, size, rect, anchor, gravity, adjustment, expected in cases:
            positioner = make_positioner(conn, wm_base, size, rect, anchor, gravity, adjustment)
            popup = Popup(conn, wm_base, window.xdg_surface, positioner)
            got = popup.configure()
            check(got == expected, f"popup {what}: {got}")
            popup.destroy()

        # A popup of a popup is kept inside too.
        outer = Popup(conn, wm_base, window.xdg_surface,
                      make_positioner(conn, wm_base, (100, 100), (190, 0, 10, 10), TOP_RIGHT, BOTTOM_RIGHT, FLIP_X))
        ox, oy, _, _ = outer.configure()
        outer.draw(100, 100, 0xff909090)
        inner = Popup(conn, wm_base, outer.xdg_surface,
                      make_positioner(conn, wm_base, (150, 50), (90, 0, 10, 10), TOP_RIGHT, BOTTOM_RIGHT, FLIP_X))
        ix, iy, _, _ = inner.configure()
        left = wx + ox + ix
        check((ox, ix) == (200, -60) and 0 <= left and left + 150 <= OUTPUT_W,
              f"a nested popup past the right edge flips to the left of its parent popup (x {ox} + {ix}: "
              f"{left}..{left + 150} on screen)")


def popup_grab(kiln):
    with Connection(kiln.client_env) as conn:
        seat_input = Input(conn)
        window = Window(conn, "popup grab")
        window.show(200, 150, 0xff305070)
        x0, y0, _, _ = wait_box_sized(kiln, 0xff305070, 200, 150, "the parent is on screen")
        seat_input.move_to(x0 + 20, y0 + 20)
        serial = seat_input.press()
        positioner = make_positioner(conn, window.wm_base, (80, 60), (20, 20, 1, 1), TOP_LEFT, BOTTOM_RIGHT, 0)
        popup = Popup(conn, window.wm_base, window.xdg_surface, positioner, grab=(seat_input.seat, serial))
        popup.configure()
        popup.draw(80, 60, 0xffd0d0d0)
        seat_input.button(False)
        wait_box_sized(kiln, 0xffd0d0d0, 80, 60, "the grabbing popup is on screen")

        seat_input.move_to(x0 + 40, y0 + 40)  # inside the popup
        seat_input.button(True)
        seat_input.button(False)
        check(conn.take(popup.popup, 1) == [], "a click inside the popup does not dismiss it")
        seat_input.move_to(5, 5)  # the background
        seat_input.button(True)
        conn.dispatch_until(lambda e: e.obj == popup.popup and e.opcode == 1)
        seat_input.button(False)
        check(True, "a click outside the client's surfaces sends popup_done")
        popup.destroy()

        # A grab with a serial the client never got is refused: the popup is dismissed at once, nothing grabbed.
        for forged in (123456, 0):
            positioner = make_positioner(conn, window.wm_base, (80, 60), (20, 20, 1, 1), TOP_LEFT, BOTTOM_RIGHT, 0)
            popup = Popup(conn, window.wm_base, window.xdg_surface, positioner, grab=(seat_input.seat, forged))
            conn.dispatch_until(lambda e: e.obj == popup.popup and e.opcode == 1)
            check(True, f"a grab with the forged serial {forged} gets popup_done without a click")
            popup.destroy()
        seat_input.move_to(x0 + 150, y0 + 100)
        conn.take(seat_input.pointer)
        seat_input.press()
        seat_input.button(False)
        check(True, "after the refused grabs, the window gets clicks")
        seat_input.close()


# --- pings --------------------------------------------------------------------------------------------------------

def unresponsive_client(kiln):
    with Connection(kiln.client_env) as hung:
        window = Window(hung, "hung")
        window.show(200, 150, 0xff704030)
        hung.dispatch_until(lambda e: e.obj == window.wm_base and e.opcode == 0)
        check(True, "a window given focus is pinged")
        # It never answers; another client is served meanwhile.
        with Connection(kiln.client_env) as other:
            responsive = Window(other, "responsive")
            responsive.show(200, 150, 0xff307040)
            other.dispatch_until(lambda e: e.obj == responsive.wm_base and e.opcode == 0)
            other.answer_pings(responsive.wm_base)
            wait_box_sized(kiln, 0xff307040, 200, 150, "a second client maps while the first ignores its ping")
            kiln.wait_for(lambda: "window 'hung' is not responding" in kiln.logs(),
                          "kiln to mark the hung window unresponsive", timeout=30, interval=0.2)
            check("'responsive' is not responding" not in kiln.logs(), "the hung window is marked, the other not")


# --- bad input ----------------------------------------------------------------------------------------------------

def expect_error(kiln, what, body, code):
    try:
        with Connection(kiln.client_env) as conn:
            body(conn)
            conn.roundtrip()
    except ProtocolError as error:
        check(f": {code} " in str(error), f"{what}: {error}")
        return
    raise AssertionError(f"{what}: no protocol error")


def bad_input(kiln):
    def zero_size(conn):
        wm_base = conn.bind("xdg_wm_base", 2)
        positioner = conn.create("xdg_positioner", wm_base, 1)
        conn.send(positioner, 1, ("i", 0), ("i", 0))

    expect_error(kiln, "a positioner of size 0x0 is xdg_positioner.invalid_input", zero_size, 0)

    def incomplete(conn):
        window = Window(conn, "incomplete positioner")
        window.show(100, 100, 0xff101020)
        positioner = conn.create("xdg_positioner", window.wm_base, 1)
        conn.send(positioner, 2, ("i", 0), ("i", 0), ("i", 10), ("i", 10))  # an anchor rect but no size
        Popup(conn, window.wm_base, window.xdg_surface, positioner)

    expect_error(kiln, "a popup from a positioner with no size is xdg_wm_base.invalid_positioner", incomplete, 5)

    def bad_edge(conn):
        seat = conn.bind("wl_seat", 5)
        window = Window(conn, "bad edge")
        window.show(100, 100, 0xff102010)
        conn.send(window.toplevel, 6, ("o", seat), ("u", 1), ("u", 3))  # top | bottom is no edge

    expect_error(kiln, "resize from edges 3 is xdg_toplevel.invalid_resize_edge", bad_edge, 0)

    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 5)
        window = Window(conn, "forged")
        window.show(100, 100, 0xff201010)
        for serial in (0, 1, 0xffffffff):
            conn.send(window.toplevel, 5, ("o", seat), ("u", serial))
            conn.send(window.toplevel, 6, ("o", seat), ("u", serial), ("u", EDGE_BOTTOM_RIGHT))
        conn.send(window.toplevel, 6, ("o", seat), ("u", 1), ("u", 0))  # no edge: nothing to do
        conn.roundtrip()
        check(True, "moves and resizes with forged serials are ignored without an error")
        # A refused grab whose popup is gone before kiln dismisses it, in the same batch of requests.
        for destroy_surface in (False, True):
            positioner = make_positioner(conn, window.wm_base, (20, 20), (0, 0, 1, 1), TOP_LEFT, BOTTOM_RIGHT, 0)
            popup = Popup(conn, window.wm_base, window.xdg_surface, positioner, grab=(seat, 99))
            conn.send(popup.popup, 0)
            if destroy_surface:
                conn.send(popup.xdg_surface, 0)
            conn.roundtrip()
        check(True, "a refused grab's popup destroyed at once leaves nothing behind")
    check(kiln.alive(), "kiln is still running after the bad input")


def main():
    need("grim")
    for test in (maximize_and_fullscreen, maximized_from_the_start, minimize_and_focus_order, placement_of_twenty,
                 window_geometry_placement, larger_than_the_output, dialog_on_parent, move_by_request,
                 resize_by_request, popup_constraints, popup_grab, bad_input, unresponsive_client):
        print(f"--- {test.__name__}")
        with Kiln(size=f"{OUTPUT_W}x{OUTPUT_H}") as kiln:
            wait_listening(kiln)
            test(kiln)
            check(kiln.alive(), f"kiln is still running after {test.__name__}")
            status, _ = kiln.stop()
            check(status == 0, f"kiln exits 0 on SIGTERM (got {status})")


if __name__ == "__main__":
    only = sys.argv[1:]
    if only:
        main_tests = [globals()[name] for name in only]

        def main():  # noqa: F811
            need("grim")
            for test in main_tests:
                print(f"--- {test.__name__}")
                with Kiln(size=f"{OUTPUT_W}x{OUTPUT_H}") as kiln:
                    wait_listening(kiln)
                    test(kiln)
                    check(kiln.alive(), f"kiln is still running after {test.__name__}")
    run_test(main)
