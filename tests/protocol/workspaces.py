#!/usr/bin/env python3
"""Workspaces and window keys through a virtual keyboard (as wtype sends them): Super+2 shows workspace 2 and hides
workspace 1's window (pixels), which is told suspended (xdg_toplevel v6 state, seen by the client) and whose frame
callback waits while workspace 2's window gets frames; Super+1 shows it again, pixel for pixel as a
--debug-full-redraw kiln draws the same scene, and gives it back focus and its held frame. Super+Shift+3 sends the
focused window to workspace 3 (hidden, focus to the other window), Super+3 shows it; a window opens on the active
workspace. Super+Left/Right snap the focused window to exactly that half of the usable area a panel's exclusive zone
leaves, at scale 1 and 1.5, and the same key again puts it back; Super+Shift+Right/Left move it between two headless
outputs (unit: config_test checks [workspaces] and the keys' parsing)."""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from virtual_input import CTRL, SHIFT, SUPER, KeyboardAndFocus as Keys, array_u32  # noqa: E402
from wayland_wire import Connection, shm_buffer  # noqa: E402
import layer_shell  # noqa: E402
from xdg_shell_client import box_on as box, wait_box  # noqa: E402

SUSPENDED, ACTIVATED = 9, 4
RED, BLUE, GREEN = 0xffc02020, 0xff2040c0, 0xff20a040


class Window:
    """An xdg_wm_base 7 toplevel drawing one colour at the size it is configured to (or its own)."""

    def __init__(self, conn, color, size=(200, 150)):
        self.conn, self.color, self.size = conn, color, size
        self.compositor = conn.bind("wl_compositor", 4)
        self.wm_base = conn.bind("xdg_wm_base", 7)
        self.surface = conn.create("wl_surface", self.compositor, 0)
        self.xdg_surface = conn.create("xdg_surface", self.wm_base, 2, ("o", self.surface))
        self.toplevel = conn.create("xdg_toplevel", self.xdg_surface, 1)
        conn.send(self.surface, 6)
        self.configure()
        self.draw()

    def configure(self):
        """Waits for the next configure, acks it; returns (width, height, states)."""
        event = self.conn.dispatch_until(lambda e: e.obj == self.xdg_surface and e.opcode == 0)
        self.conn.events.remove(event)
        configures = self.conn.take(self.toplevel, 0)
        width, height, states = configures[-1].args("iia") if configures else (0, 0, b"")
        self.conn.send(self.xdg_surface, 4, ("u", event.args("u")[0]))
        return width, height, set(array_u32(states))

    def configure_until(self, predicate, what):
        seen = []
        for _ in range(12):
            got = self.configure()
            seen.append(got)
            if predicate(*got):
                return got
        check(False, f"{what} (configures seen: {seen})")

    def draw(self, size=None):
        if size and size[0] > 0 and size[1] > 0:
            self.size = size
        buffer = shm_buffer(self.conn, *self.size, self.color)
        self.conn.send(self.surface, 1, ("o", buffer), ("i", 0), ("i", 0))
        self.conn.send(self.surface, 2, ("i", 0), ("i", 0), ("i", self.size[0]), ("i", self.size[1]))
        self.conn.send(self.surface, 6)
        self.conn.roundtrip()

    def frame(self):
        callback = self.conn.create("wl_callback", self.surface, 3)
        self.conn.send(self.surface, 6)
        return callback


def switch_and_suspend():
    with tempfile.TemporaryDirectory(prefix="kiln-workspaces-") as tmp:
        with Kiln() as kiln, Connection(kiln.client_env) as conn, Connection(kiln.client_env) as other:
            keys = Keys(conn)
            red = Window(conn, RED)
            keys.wait_enter(red)
            where = wait_box(kiln, RED, "shown", "workspace 1's window is on screen")
            red.configure_until(lambda w, h, s: ACTIVATED in s, "it is activated")

            keys.press(SUPER, "2")
            wait_box(kiln, RED, None, "Super+2: workspace 1's window is no longer on screen")
            keys.wait_leave(red)
            check(True, "and it lost keyboard focus (workspace 2 is empty: nothing has it)")
            red.configure_until(lambda w, h, s: SUSPENDED in s, "its client is told it is suspended")
            check(True, "its client is configured suspended (xdg_toplevel v6 state)")
            held = red.frame()
            # Another client's window opens on the active workspace, 2, and its frames come.
            blue = Window(other, BLUE)
            wait_box(kiln, BLUE, "shown", "a window opened now is on workspace 2, on screen")
            for _ in range(3):
                done = blue.frame()
                other.dispatch_until(lambda e: e.obj == done and e.opcode == 0)
            conn.roundtrip()
            check(conn.take(held, 0) == [], "the hidden window's frame callback waits (3 frames of workspace 2's "
                  "window drawn)")

            keys.press(SUPER, "1")
            wait_box(kiln, RED, where, "Super+1: workspace 1's window is shown again, where it was")
            wait_box(kiln, BLUE, None, "and workspace 2's window is hidden")
            keys.wait_enter(red)
            check(True, "workspace 1's window has keyboard focus again")
            red.configure_until(lambda w, h, s: SUSPENDED not in s, "it is configured without suspended")
            conn.send(red.surface, 6)
            conn.dispatch_until(lambda e: e.obj == held and e.opcode == 0, timeout=10)
            check(True, "its held frame callback comes")
            conn.roundtrip()
            switched = kiln.screenshot()
        # The same scene drawn by a kiln that redraws everything each frame: the switch left nothing stale.
        with Kiln("--debug-full-redraw") as kiln, Connection(kiln.client_env) as conn:
            Window(conn, RED)
            wait_box(kiln, RED, where, "the reference: the same window on a --debug-full-redraw kiln")
            reference = kiln.screenshot()
        differ = sum(1 for i in range(0, len(switched.pixels), 3)
                     if switched.pixels[i:i + 3] != reference.pixels[i:i + 3])
        check(differ == 0, f"after Super+2, Super+1 the screen is pixel for pixel the full-redraw reference "
              f"({differ} pixels differ)")


def move_to_workspace():
    with Kiln() as kiln, Connection(kiln.client_env) as conn:
        keys = Keys(conn)
        red = Window(conn, RED)
        keys.wait_enter(red)
        blue = Window(conn, BLUE, (160, 120))
        keys.wait_enter(blue)
        wait_box(kiln, BLUE, "shown", "two windows on workspace 1, the second focused")
        keys.press(SUPER | SHIFT, "3")
        wait_box(kiln, BLUE, None, "Super+Shift+3: the focused window leaves the screen")
        wait_box(kiln, RED, "shown", "the other stays")
        keys.wait_enter(red)
        check(True, "focus goes to the window left on workspace 1")
        blue.configure_until(lambda w, h, s: SUSPENDED in s, "the moved window is suspended")
        keys.press(SUPER, "3")
        wait_box(kiln, BLUE, "shown", "Super+3: the moved window is on workspace 3")
        wait_box(kiln, RED, None, "and workspace 1's is hidden")
        keys.wait_enter(blue)
        check(True, "with keyboard focus")
        keys.press(SUPER | CTRL, "Left")
        wait_box(kiln, RED, "shown", "Super+Ctrl+Left: the previous workspace (1) is shown")
        keys.press(SUPER | CTRL, "Right")
        wait_box(kiln, BLUE, "shown", "Super+Ctrl+Right: the next one (3) again")


def snap(scale, size):
    """Snaps halves with a 30-px top panel at `scale` on a headless output of `size` pixels (640x480 logical)."""
    with tempfile.TemporaryDirectory(prefix="kiln-workspaces-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text(f"[output HEADLESS-1]\nscale={scale}\n")
        with Kiln("--config", str(config), size=f"{size[0]}x{size[1]}") as kiln, \
                Connection(kiln.client_env) as conn, Connection(kiln.client_env) as panel_conn:
            panel = layer_shell.LayerSurface(panel_conn, layer_shell.TOP, layer_shell.ANCHOR_TOP |
                                             layer_shell.ANCHOR_LEFT | layer_shell.ANCHOR_RIGHT, (0, 30), zone=30)
            panel.map(layer_shell.GREEN)
            keys = Keys(conn)
            red = Window(conn, RED)
            keys.wait_enter(red)
            before = wait_box(kiln, RED, "shown", f"scale {scale}: the window is on screen")
            px = lambda v: int(v * scale + 0.5)  # noqa: E731
            keys.press(SUPER, "Left")
            width, height, _ = red.configure_until(lambda w, h, s: (w, h) == (320, 450),
                                                   "Super+Left: configured to half the usable area")
            check(True, f"scale {scale}, Super+Left: configured {width}x{height}, half of 640x450")
            red.draw((width, height))
            wait_box(kiln, RED, (0, px(30), px(320), px(480)),
                     f"scale {scale}, Super+Left: the window fills the left half below the panel")
            # Already that size: it only moves over.
            keys.press(SUPER, "Right")
            wait_box(kiln, RED, (px(320), px(30), px(640), px(480)),
                     f"scale {scale}, Super+Right: the window fills the right half below the panel")
            keys.press(SUPER, "Right")
            red.configure_until(lambda w, h, s: (w, h) == (200, 150), "Super+Right again: its size back")
            red.draw((200, 150))
            wait_box(kiln, RED, before, f"scale {scale}: Super+Right again puts it back where it was")
            keys.press(SUPER, "Up")
            red.configure_until(lambda w, h, s: (w, h) == (640, 450), "Super+Up: maximized to the usable area")
            check(True, f"scale {scale}: Super+Up maximizes to the usable area")


def move_to_output():
    with tempfile.TemporaryDirectory(prefix="kiln-workspaces-") as tmp:
        config = Path(tmp) / "kiln.ini"
        # Side by side, HEADLESS-1 on the left.
        config.write_text("[output HEADLESS-1]\nposition=0,0\n[output HEADLESS-2]\nposition=640,0\n")
        with Kiln("--outputs", "2", "--config", str(config)) as kiln, Connection(kiln.client_env) as conn:
            windows_across_outputs(kiln, conn)


def windows_across_outputs(kiln, conn):
    keys = Keys(conn)
    red = Window(conn, RED)
    keys.wait_enter(red)
    on_first = wait_box(kiln, RED, "shown", "the window is on screen") and box(kiln, RED, "HEADLESS-1")
    start, other, there, back = (("HEADLESS-1", "HEADLESS-2", "Right", "Left") if on_first else
                                 ("HEADLESS-2", "HEADLESS-1", "Left", "Right"))
    where = wait_box(kiln, RED, "shown", f"it opened on {start}", output=start)
    keys.press(SUPER | SHIFT, there)
    wait_box(kiln, RED, where, f"Super+Shift+{there}: it is on {other}, at the same place", output=other)
    wait_box(kiln, RED, None, f"and no longer on {start}", output=start)
    keys.press(SUPER | SHIFT, there)
    conn.roundtrip()
    wait_box(kiln, RED, where, f"Super+Shift+{there} again: no output there, it stays", output=other)
    keys.press(SUPER | SHIFT, back)
    wait_box(kiln, RED, where, f"Super+Shift+{back}: back on {start}", output=start)
    # Each output has its own workspaces: a second window sent to the other output, Super+2 there (where the
    # focused window is) hides it and leaves the first output's window shown.
    blue = Window(conn, BLUE, (160, 120))
    keys.wait_enter(blue)
    if box(kiln, BLUE, start):
        keys.press(SUPER | SHIFT, there)
    wait_box(kiln, BLUE, "shown", f"a second window on {other}", output=other)
    keys.press(SUPER, "2")
    wait_box(kiln, BLUE, None, f"Super+2 with it focused hides it on {other}", output=other)
    wait_box(kiln, RED, where, f"and {start} still shows its own workspace 1", output=start)
    keys.press(SUPER, "1")
    wait_box(kiln, BLUE, "shown", f"Super+1 shows {other}'s workspace 1 again", output=other)


def main():
    need("grim")
    switch_and_suspend()
    move_to_workspace()
    snap(1, (640, 480))
    snap(1.5, (960, 720))
    move_to_output()


run_test(main)
