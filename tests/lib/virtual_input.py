"""Input a test sends as wtype or a remote desktop would: a zwp_virtual_keyboard_v1 with the keymap kiln gave the
client, and a zwlr_virtual_pointer_v1 over the whole output; and the headless tablet's pen (kiln_test_input_v1)."""
import sys

# Core modifier bits in every xkb keymap (Shift Lock Control Mod1..Mod5) and evdev key codes.
SHIFT, CTRL, ALT, SUPER = 1, 4, 8, 64
KEY = {"F2": 60, "Return": 28, "Tab": 15, "q": 16, "e": 18, "f": 33, "a": 30, "Up": 103, "x": 45, "t": 20,
       "Left": 105, "Right": 106, "Down": 108, **{str(n): n + 1 for n in range(1, 10)}}
BTN_LEFT, BTN_RIGHT = 0x110, 0x111


def array_u32(data):
    return [int.from_bytes(data[i:i + 4], sys.byteorder) for i in range(0, len(data), 4)]


class VirtualKeyboard:
    """zwp_virtual_keyboard_v1 with the keymap kiln gave the client, so key codes mean what they do on a keyboard."""

    def __init__(self, conn, seat, keymap_event):
        self.conn = conn
        _, size = keymap_event.args("uu")
        manager = conn.bind("zwp_virtual_keyboard_manager_v1", 1)
        self.obj = conn.new_id("zwp_virtual_keyboard_v1")
        conn.send(manager, 0, ("o", seat), ("n", self.obj))
        conn.send(self.obj, 0, ("u", 1), ("u", size), fds=[keymap_event.fds[0]])
        self.time = 0

    def hold(self, modifiers):
        """Holds `modifiers` (0: lets go of them), as a modifier key held down does."""
        self.conn.send(self.obj, 2, ("u", modifiers), ("u", 0), ("u", 0), ("u", 0))
        self.conn.roundtrip()

    def press(self, modifiers, key, sync=True):
        """Holds `modifiers`, taps `key`, lets go: what a person typing the combination sends. Without `sync`
        kiln may be gone after the press (quit): the rest may find the connection closed."""
        self.time += 10
        self.conn.send(self.obj, 2, ("u", modifiers), ("u", 0), ("u", 0), ("u", 0))
        self.conn.send(self.obj, 1, ("u", self.time), ("u", KEY[key]), ("u", 1))
        self.conn.send(self.obj, 1, ("u", self.time + 1), ("u", KEY[key]), ("u", 0))
        self.conn.send(self.obj, 2, ("u", 0), ("u", 0), ("u", 0), ("u", 0))
        if sync:
            self.conn.roundtrip()


class VirtualPointer:
    """A zwlr_virtual_pointer_v1 over the whole output of `size` (width, height)."""

    def __init__(self, conn, size):
        self.conn = conn
        self.size = size
        seat = conn.bind("wl_seat", 5)
        manager = conn.bind("zwlr_virtual_pointer_manager_v1", 1)
        self.pointer = conn.new_id("zwlr_virtual_pointer_v1")
        conn.send(manager, 0, ("o", seat), ("n", self.pointer))

    def move(self, x, y):
        self.conn.send(self.pointer, 1, ("u", 1), ("u", x), ("u", y), ("u", self.size[0]), ("u", self.size[1]))
        self.conn.send(self.pointer, 4)  # frame
        self.conn.roundtrip()

    def button(self, pressed, button=BTN_LEFT):
        self.conn.send(self.pointer, 2, ("u", 2), ("u", button), ("u", 1 if pressed else 0))
        self.conn.send(self.pointer, 4)
        self.conn.roundtrip()

    def drag(self, start, end, button=BTN_LEFT):
        """Presses `button` at `start`, moves to `end` in a few steps, releases it there."""
        self.move(*start)
        self.button(True, button)
        for step in (1, 2, 3, 4):
            self.move(start[0] + (end[0] - start[0]) * step // 4, start[1] + (end[1] - start[1]) * step // 4)
        self.button(False, button)

    def destroy(self):
        self.conn.send(self.pointer, 8)
        self.conn.roundtrip()


class HeadlessPen:
    """The headless tablet's pen, through kiln_test_input_v1 version 2 on its own connection."""

    def __init__(self, conn):
        self.conn = conn
        self.input = conn.bind("kiln_test_input_v1", 2)

    def near(self, x, y):
        self.conn.send(self.input, 6, ("f", x), ("f", y))
        self.conn.roundtrip()

    def move(self, x, y):
        self.conn.send(self.input, 7, ("f", x), ("f", y))
        self.conn.roundtrip()

    def tip(self, down):
        self.conn.send(self.input, 8, ("u", 1 if down else 0))
        self.conn.roundtrip()

    def away(self):
        self.conn.send(self.input, 9)
        self.conn.roundtrip()


class KeyboardAndFocus:
    """A client's wl_keyboard (to see its focus) and a virtual keyboard with kiln's keymap on the same seat."""

    def __init__(self, conn):
        self.conn = conn
        seat = conn.bind("wl_seat", 5)
        self.keyboard = conn.create("wl_keyboard", seat, 1)
        keymap = conn.dispatch_until(lambda e: e.obj == self.keyboard and e.opcode == 0)
        self.virtual = VirtualKeyboard(conn, seat, keymap)

    def press(self, modifiers, key):
        self.virtual.press(modifiers, key)

    def wait_enter(self, window):
        event = self.conn.dispatch_until(lambda e: e.obj == self.keyboard and e.opcode == 1 and
                                         e.args("uo")[1] == window.surface)
        self.conn.events.remove(event)

    def wait_leave(self, window):
        event = self.conn.dispatch_until(lambda e: e.obj == self.keyboard and e.opcode == 2 and
                                         e.args("uo")[1] == window.surface)
        self.conn.events.remove(event)
