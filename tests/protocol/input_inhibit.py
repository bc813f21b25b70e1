#!/usr/bin/env python3
"""wlr-input-inhibitor on headless kiln: while client A holds the inhibitor, B (which had keyboard and pointer)
loses both (its window is no longer activated) and gets no keys, pointer or touch input, and A's window takes them all, with kiln's bindings (Super+Q)
passing to it as plain keys; a second inhibitor is a protocol error. When A lets go, or dies holding it, B has
keyboard focus, keys and the pointer again. --restrict input-inhibit hides the global from clients kiln did not
start."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402
from virtual_input import array_u32  # noqa: E402
from wayland_wire import Connection, ProtocolError, Toplevel, expect_protocol_error  # noqa: E402

MANAGER = "zwlr_input_inhibit_manager_v1"
WIDTH, HEIGHT = 640, 480
ON_B_ONLY = (50, 50)     # B fills the output; A's small window is centred, away from here
ON_A = (320, 240)        # the middle of the output: A's window when it has one, else B's
KEYMAP, K_ENTER, K_LEAVE, K_KEY = 0, 1, 2, 3    # wl_keyboard events
K_RELEASE = -K_KEY  # a wl_keyboard.key that lets go (the test's own marker)
P_ENTER, P_LEAVE, P_MOTION, P_BUTTON = 0, 1, 2, 3  # wl_pointer events
SUPER = 64
KEY_A, KEY_X, KEY_T, KEY_Q = 30, 45, 20, 16
BTN_LEFT = 0x110
XDG_TOPLEVEL_CLOSE = 1
XDG_ACTIVATED = 4  # xdg_toplevel.state


class InputClient:
    """A client with a wl_keyboard, a wl_pointer, a wl_touch and (once map() is called) one window."""

    def __init__(self, kiln, title):
        self.conn = Connection(kiln.client_env)
        self.seat = self.conn.bind("wl_seat", 5)
        self.keyboard = self.conn.create("wl_keyboard", self.seat, 1)
        self.pointer = self.conn.create("wl_pointer", self.seat, 0)
        self.touch = self.conn.create("wl_touch", self.seat, 2)
        self.title = title
        self.window = None

    def map(self, width, height, color):
        self.window = Toplevel(self.conn, self.title)
        self.window.commit()
        self.window.map(width, height, color=color)

    def events(self):
        """What came since the last call, as (device, opcode) with 'keyboard', 'pointer', 'touch' or 'close';
        keymaps, modifiers and frames left out."""
        self.conn.roundtrip()
        if self.window:
            self.conn.answer_pings(self.window.wm_base)
        out = []
        for event in list(self.conn.events):
            if event.obj == self.keyboard and event.opcode in (K_ENTER, K_LEAVE):
                out.append(("keyboard", event.opcode, None))
            elif event.obj == self.keyboard and event.opcode == K_KEY:
                _, _, key, state = event.args("uuuu")
                out.append(("keyboard", K_KEY if state else K_RELEASE, key))
            elif event.obj == self.pointer and event.opcode in (P_ENTER, P_LEAVE, P_MOTION, P_BUTTON):
                out.append(("pointer", event.opcode, None))
            elif event.obj == self.touch and event.opcode in (0, 1, 2, 4):  # down, up, motion, cancel
                out.append(("touch", event.opcode, None))
            elif self.window and event.obj == self.window.toplevel and event.opcode == XDG_TOPLEVEL_CLOSE:
                out.append(("close", event.opcode, None))
        self.conn.events = [e for e in self.conn.events if e.obj not in (self.keyboard, self.pointer, self.touch)]
        return out

    def keys(self):
        got = self.events()
        return [arg for device, op, arg in got if device == "keyboard" and op == K_KEY]


class Injector:
    """A virtual keyboard and pointer (as wtype and wlrctl use) and kiln's test touch input."""

    def __init__(self, kiln):
        self.conn = Connection(kiln.client_env)
        seat = self.conn.bind("wl_seat", 5)
        keyboard = self.conn.create("wl_keyboard", seat, 1)
        keymap = self.conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == KEYMAP)
        manager = self.conn.bind("zwp_virtual_keyboard_manager_v1", 1)
        self.keyboard = self.conn.new_id("zwp_virtual_keyboard_v1")
        self.conn.send(manager, 0, ("o", seat), ("n", self.keyboard))
        self.conn.send(self.keyboard, 0, ("u", 1), ("u", keymap.args("uu")[1]), fds=[keymap.fds[0]])
        manager = self.conn.bind("zwlr_virtual_pointer_manager_v1", 1)
        self.pointer = self.conn.new_id("zwlr_virtual_pointer_v1")
        self.conn.send(manager, 0, ("o", seat), ("n", self.pointer))
        self.touch = self.conn.bind("kiln_test_input_v1", 1)
        self.time = 0

    def key(self, key, modifiers=0):
        self.time += 10
        self.conn.send(self.keyboard, 2, ("u", modifiers), ("u", 0), ("u", 0), ("u", 0))
        self.conn.send(self.keyboard, 1, ("u", self.time), ("u", key), ("u", 1))
        self.conn.send(self.keyboard, 1, ("u", self.time + 1), ("u", key), ("u", 0))
        self.conn.send(self.keyboard, 2, ("u", 0), ("u", 0), ("u", 0), ("u", 0))
        self.conn.roundtrip()

    def point(self, x, y):
        self.time += 10
        self.conn.send(self.pointer, 1, ("u", self.time), ("u", x), ("u", y), ("u", WIDTH), ("u", HEIGHT))
        self.conn.send(self.pointer, 4)  # frame
        self.conn.roundtrip()

    def click(self):
        for state in (1, 0):
            self.time += 10
            self.conn.send(self.pointer, 2, ("u", self.time), ("u", BTN_LEFT), ("u", state))
            self.conn.send(self.pointer, 4)
        self.conn.roundtrip()

    def tap(self, x, y):
        self.conn.send(self.touch, 1, ("i", 7), ("f", x), ("f", y))  # touch_down
        self.conn.send(self.touch, 4)  # frame
        self.conn.send(self.touch, 3, ("i", 7))  # touch_up
        self.conn.send(self.touch, 4)
        self.conn.roundtrip()


def wait_states(client, predicate, what):
    """Waits for an xdg_toplevel.configure of the client's window whose states satisfy `predicate`."""
    window = client.window.toplevel
    try:
        client.conn.dispatch_until(lambda e: e.obj == window and e.opcode == 0 and
                                   predicate(set(array_u32(e.args("iia")[2]))))
    except ProtocolError as error:
        check(False, f"{what}: no such configure came ({error})")
    check(True, what)


def inhibit(kiln):
    """A client holding the input inhibitor: (connection, inhibitor)."""
    conn = Connection(kiln.client_env)
    inhibitor = conn.create("zwlr_input_inhibitor_v1", conn.bind(MANAGER, 1), 0)  # get_inhibitor
    conn.roundtrip()
    return conn, inhibitor


def b_is_shut_out(b, inject, what):
    """Keys, pointer moves, clicks and taps all over the output: B hears of none of them."""
    inject.key(KEY_X)
    inject.point(*ON_B_ONLY)
    inject.point(*ON_A)
    inject.click()
    inject.tap(*ON_B_ONLY)
    got = b.events()
    check(got == [], f"{what}: B gets no keys, pointer or touch ({got})")


def b_has_it_back(b, inject, what):
    got = b.events()
    check(("keyboard", K_ENTER, None) in got, f"{what}: B has keyboard focus again ({got})")
    inject.key(KEY_T)
    check(b.keys() == [KEY_T], f"{what}: keys reach B again")
    inject.point(*ON_B_ONLY)
    inject.point(*ON_A)
    got = b.events()
    check(("pointer", P_ENTER, None) in got or ("pointer", P_MOTION, None) in got,
          f"{what}: the pointer reaches B again ({got})")


def main():
    with Kiln("--test-input", size=f"{WIDTH}x{HEIGHT}") as kiln:
        with Connection(kiln.client_env) as conn:
            check(MANAGER in conn.globals, f"{MANAGER} is offered by default, as sway does")
        inject = Injector(kiln)
        b = InputClient(kiln, "B")
        b.map(WIDTH, HEIGHT, 0xff00ff00)
        inject.point(*ON_A)
        got = b.events()
        check(("keyboard", K_ENTER, None) in got and ("pointer", P_ENTER, None) in got,
              f"B mapped under the pointer has keyboard and pointer ({got})")
        inject.key(KEY_A)
        check(b.keys() == [KEY_A], "B gets keys before anything is inhibited")
        wait_states(b, lambda states: XDG_ACTIVATED in states, "B's window, focused, is told it is activated")
        b.conn.take(b.window.toplevel, 0)  # only configures sent from here on count

        # A, with no window, takes the inhibitor and lets go of it.
        a, inhibitor = inhibit(kiln)
        got = b.events()
        check(("keyboard", K_LEAVE, None) in got and ("pointer", P_LEAVE, None) in got,
              f"A takes the inhibitor: B gets keyboard and pointer leave ({got})")
        wait_states(b, lambda states: XDG_ACTIVATED not in states,
                    "and B's window is told it is no longer activated")
        b_is_shut_out(b, inject, "while A holds the inhibitor")
        with Connection(kiln.client_env) as c:
            c.create("zwlr_input_inhibitor_v1", c.bind(MANAGER, 1), 0)
            error = str(expect_protocol_error(c))
            check("zwlr_input_inhibit_manager_v1" in error and ": 0 " in error,
                  f"a second inhibitor while A holds one is error already_inhibited ({error})")
        a.send(inhibitor, 0)  # zwlr_input_inhibitor_v1.destroy
        a.roundtrip()
        b_has_it_back(b, inject, "A let go of the inhibitor")
        a.close()

        # A takes it again and maps a window: the window has all input, kiln's bindings pass to it; then A dies.
        a = InputClient(kiln, "A")
        a.conn.create("zwlr_input_inhibitor_v1", a.conn.bind(MANAGER, 1), 0)
        a.conn.roundtrip()
        b.events()
        a.map(200, 150, 0xffff0000)
        got = a.events()
        check(("keyboard", K_ENTER, None) in got, f"A's window, mapped while A holds the inhibitor, has the "
              f"keyboard ({got})")
        inject.key(KEY_A)
        check(a.keys() == [KEY_A], "keys go to A")
        inject.key(KEY_Q, SUPER)
        got = a.events()
        check(("keyboard", K_KEY, KEY_Q) in got and ("close", XDG_TOPLEVEL_CLOSE, None) not in got,
              f"Super+Q is no binding while input is inhibited: A gets the key and no close ({got})")
        inject.point(*ON_B_ONLY)
        got = a.events()
        check(("pointer", P_LEAVE, None) in got, f"the pointer leaves A's window for B's part of the output ({got})")
        inject.point(*ON_A)
        got = a.events()
        check(("pointer", P_ENTER, None) in got, f"and enters it again ({got})")
        inject.point(*ON_B_ONLY)
        inject.click()  # a click on B does not focus B
        b_is_shut_out(b, inject, "while A's window holds the inhibitor")
        check(a.keys() == [KEY_X], "A still has the keyboard after a click on B")

        a.conn.close()  # dies holding the inhibitor
        b_has_it_back(b, inject, "A died holding the inhibitor")
        check(kiln.alive(), "kiln is still running")

    with Kiln("--restrict", "input-inhibit") as kiln:
        with Connection(kiln.client_env) as conn:
            check(MANAGER not in conn.globals, f"--restrict input-inhibit hides {MANAGER} from a client kiln did "
                  "not start")


run_test(main)
