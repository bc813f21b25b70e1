#!/usr/bin/env python3
"""Layer shell on headless kiln (640x480): swaybg paints the background under windows, panels take exclusive zones
out of the usable area (clamped when too large), layers stack around windows, keyboard interactivity, popups, and
the size error wlroots 0.15 leaves to the compositor."""
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel, expect_protocol_error, shm_buffer  # noqa: E402

BACKGROUND, BOTTOM, TOP, OVERLAY = 0, 1, 2, 3
ANCHOR_TOP, ANCHOR_BOTTOM, ANCHOR_LEFT, ANCHOR_RIGHT = 1, 2, 4, 8
INTERACTIVITY_NONE, INTERACTIVITY_EXCLUSIVE, INTERACTIVITY_ON_DEMAND = 0, 1, 2
BTN_LEFT = 0x110
RED, GREEN, BLUE = (255, 0, 0), (0, 255, 0), (0, 0, 255)
YELLOW, MAGENTA, CYAN = (255, 255, 0), (255, 0, 255), (0, 255, 255)


def argb(color):
    r, g, b = color
    return 0xff000000 | r << 16 | g << 8 | b


class LayerSurface:
    """A zwlr_layer_surface_v1 on the wire: set up, committed, and mapped once configured."""

    def __init__(self, conn, layer, anchor=0, size=(0, 0), zone=0, margin=(0, 0, 0, 0),
                 interactivity=INTERACTIVITY_NONE, namespace="kiln-test"):
        self.conn = conn
        compositor = conn.bind("wl_compositor", 4)
        shell = conn.bind("zwlr_layer_shell_v1", 4)
        self.surface = conn.create("wl_surface", compositor, 0)
        self.layer_surface = conn.create("zwlr_layer_surface_v1", shell, 0, ("o", self.surface), ("o", 0),
                                         ("u", layer), ("s", namespace))
        conn.send(self.layer_surface, 0, ("u", size[0]), ("u", size[1]))  # set_size
        conn.send(self.layer_surface, 1, ("u", anchor))  # set_anchor
        conn.send(self.layer_surface, 2, ("i", zone))  # set_exclusive_zone
        conn.send(self.layer_surface, 3, *[("i", m) for m in margin])  # set_margin: top right bottom left
        conn.send(self.layer_surface, 4, ("u", interactivity))  # set_keyboard_interactivity
        conn.send(self.surface, 6)  # commit: asks for the first configure

    def configured(self):
        """Waits for a configure, acks it and returns (width, height)."""
        event = self.conn.dispatch_until(lambda e: e.obj == self.layer_surface and e.opcode == 0)
        self.conn.events.remove(event)
        serial, width, height = event.args("uuu")
        self.conn.send(self.layer_surface, 6, ("u", serial))  # ack_configure
        return width, height

    def map(self, color):
        width, height = self.configured()
        self.size = (width, height)
        buffer = shm_buffer(self.conn, width, height, argb(color))
        self.conn.send(self.surface, 1, ("o", buffer), ("i", 0), ("i", 0))  # attach
        self.conn.send(self.surface, 2, ("i", 0), ("i", 0), ("i", width), ("i", height))  # damage
        self.conn.send(self.surface, 6)
        self.conn.roundtrip()
        return width, height

    def destroy(self):
        self.conn.send(self.layer_surface, 7)
        self.conn.send(self.surface, 0)
        self.conn.roundtrip()


def box_of(kiln, color, what, expected=None):
    """Waits until `color` is on screen (with bounding box `expected`, when given) and returns its bounding box."""
    def seen():
        box = kiln.screenshot().bounding_box(color)
        return box if box and (expected is None or box == expected) else None
    return kiln.wait_for(seen, what)


def swaybg_under_windows(kiln):
    need("swaybg")
    kiln.spawn(["swaybg", "-c", "#ff0000"])
    kiln.wait_for(lambda: kiln.screenshot().count(RED, step=16) == 40 * 30, "swaybg's red over the whole output")
    check(True, "swaybg -c '#ff0000' paints the whole 640x480 output red")
    with Connection(kiln.client_env) as conn:
        window = Toplevel(conn, "over the background")
        window.commit()
        window.map(200, 150, argb(BLUE))
        box = box_of(kiln, BLUE, "the window over the background")
        shot = kiln.screenshot()
        check(box[2] - box[0] == 200 and box[3] - box[1] == 150 and shot.at(2, 2) == RED,
              f"a window is drawn whole over swaybg's background ({box}), the background around it")


def exclusive_zone(kiln):
    with Connection(kiln.client_env) as conn:
        bar = LayerSurface(conn, TOP, ANCHOR_TOP | ANCHOR_LEFT | ANCHOR_RIGHT, (0, 30), zone=30)
        width, height = bar.map(GREEN)
        check((width, height) == (640, 30),
              f"a top bar anchored left and right is as wide as the output ({width}x{height})")
        box_of(kiln, GREEN, "the bar along the top edge", (0, 0, 640, 30))
        check(True, "the bar is drawn along the top edge")
        # Anchored to the top with no zone of its own: placed in the usable area, right under the bar.
        below = LayerSurface(conn, TOP, ANCHOR_TOP, (100, 20))
        check(below.map(YELLOW) == (100, 20), "a 100x20 surface gets its size")
        box_of(kiln, YELLOW, "the surface under the bar", (270, 30, 370, 50))
        check(True, "a surface anchored to the top sits under the bar's exclusive zone, centred (270, 30)")
        # Margins move it; -1 ignores the zone.
        ignoring = LayerSurface(conn, OVERLAY, ANCHOR_TOP | ANCHOR_LEFT, (40, 40), zone=-1, margin=(5, 0, 0, 7))
        ignoring.map(MAGENTA)
        box_of(kiln, MAGENTA, "the zone -1 surface at its margins", (7, 5, 47, 45))
        check(True, "exclusive zone -1 places a surface at the output's edge, by its margins, over the bar")
        bar.destroy()
        box_of(kiln, YELLOW, "the surface to move up once the bar is gone", (270, 0, 370, 20))
        check(True, "when the bar goes, its zone goes: the surface moves up to the edge")
        ignoring.destroy()

        huge = LayerSurface(conn, BOTTOM, ANCHOR_BOTTOM | ANCHOR_LEFT | ANCHOR_RIGHT, (0, 10), zone=100000)
        huge.map(CYAN)
        box_of(kiln, CYAN, "the bottom bar", (0, 470, 640, 480))
        left = LayerSurface(conn, TOP, ANCHOR_TOP | ANCHOR_BOTTOM | ANCHOR_LEFT, (50, 0))
        _, h = left.map(GREEN)
        check(h == 240, f"an exclusive zone of 100000 px is clamped: half the output stays usable (got height {h})")
        check(kiln.alive(), "kiln is unaffected")


WAYBAR_CONFIG = '{"layer": "top", "position": "top", "height": 30, "modules-left": [], "modules-right": []}'
WAYBAR_STYLE = "* { border: none; border-radius: 0; min-height: 0; } window#waybar { background-color: #00ff00; }"


def waybar(kiln):
    if shutil.which("waybar") is None:
        print("waybar is not installed: its case is skipped")
        return
    with tempfile.TemporaryDirectory() as directory:
        config, style = Path(directory) / "config", Path(directory) / "style.css"
        config.write_text(WAYBAR_CONFIG)
        style.write_text(WAYBAR_STYLE)
        kiln.spawn(["waybar", "-c", str(config), "-s", str(style)])
        box_of(kiln, GREEN, "waybar's strip along the top edge", (0, 0, 640, 30))
        check(True, "waybar draws a 30 px strip along the top edge")
        with Connection(kiln.client_env) as conn:
            below = LayerSurface(conn, TOP, ANCHOR_TOP | ANCHOR_LEFT, (100, 20))
            below.map(YELLOW)
            box_of(kiln, YELLOW, "a surface in the usable area, under waybar", (0, 30, 100, 50))
            check(True, "waybar's exclusive zone shrinks the usable area: the next surface sits under it")


def stacking(kiln):
    with Connection(kiln.client_env) as conn:
        window = Toplevel(conn, "between the layers")
        window.commit()
        window.map(300, 300, argb(BLUE))
        box = box_of(kiln, BLUE, "the window")
        x, y = box[0] + 10, box[1] + 10
        under = LayerSurface(conn, BOTTOM, ANCHOR_TOP | ANCHOR_LEFT, (50, 50), margin=(y, 0, 0, x))
        under.map(CYAN)
        over = LayerSurface(conn, TOP, ANCHOR_TOP | ANCHOR_LEFT, (50, 50), margin=(y + 100, 0, 0, x))
        over.map(MAGENTA)
        box_of(kiln, MAGENTA, "the top-layer surface over the window", (x, y + 100, x + 50, y + 150))
        shot = kiln.screenshot()
        check(shot.at(x + 25, y + 25) == BLUE and shot.count(CYAN) == 0,
              "a bottom-layer surface is under the window, a top-layer one over it")


def keyboard(kiln):
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 5)
        keyboard = conn.create("wl_keyboard", seat, 1)

        def entered():
            event = conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 1)
            conn.events.remove(event)
            return event.args("uo")[1]

        window = Toplevel(conn, "keyboard")
        window.commit()
        window.map(100, 100, argb(BLUE))
        check(entered() == window.surface, "a new window takes the keyboard")
        grab = LayerSurface(conn, OVERLAY, ANCHOR_TOP, (100, 100), interactivity=INTERACTIVITY_EXCLUSIVE)
        grab.map(GREEN)
        check(entered() == grab.surface, "an overlay surface with exclusive interactivity takes the keyboard")
        other = Toplevel(conn, "no keyboard while grabbed")
        other.commit()
        other.map(100, 100, argb(BLUE))
        conn.roundtrip()
        check([e for e in conn.events if e.obj == keyboard and e.opcode == 1] == [],
              "a window mapped during the grab does not get the keyboard")
        grab.destroy()
        check(entered() == other.surface, "when the grabbing surface goes, the topmost window gets it back")
        panel = LayerSurface(conn, TOP, ANCHOR_BOTTOM, (100, 30), interactivity=INTERACTIVITY_ON_DEMAND)
        panel.map(CYAN)
        check(entered() == panel.surface, "an on-demand top surface gets the keyboard when it appears")
        none = LayerSurface(conn, OVERLAY, ANCHOR_LEFT, (30, 30), interactivity=INTERACTIVITY_NONE)
        none.map(MAGENTA)
        conn.roundtrip()
        check([e for e in conn.events if e.obj == keyboard and e.opcode == 1] == [],
              "a surface without keyboard interactivity never gets it")

        # Clicks: on a window it takes the keyboard, on the on-demand panel (bottom centre) the panel takes it back.
        pointers = conn.bind("zwlr_virtual_pointer_manager_v1", 1)
        virtual = conn.new_id("zwlr_virtual_pointer_v1")
        conn.send(pointers, 0, ("o", seat), ("n", virtual))
        box = kiln.screenshot().bounding_box(BLUE)

        def click(x, y):
            conn.send(virtual, 1, ("u", 1), ("u", x), ("u", y), ("u", 640), ("u", 480))
            conn.send(virtual, 4)
            for state in (1, 0):
                conn.send(virtual, 2, ("u", 2), ("u", BTN_LEFT), ("u", state))
                conn.send(virtual, 4)

        click(box[2] - 5, box[3] - 5)
        check(entered() in (window.surface, other.surface), "a click on a window gives it the keyboard")
        click(320, 465)
        check(entered() == panel.surface, "a click on the on-demand panel gives it the keyboard back")
        click(15, 240)
        conn.roundtrip()
        check([e for e in conn.events if e.obj == keyboard and e.opcode == 1] == [],
              "a click on the surface without interactivity does not")

        # The focused panel gives up keyboard interactivity: it loses the keyboard at that commit, to a window.
        conn.take(keyboard)
        conn.send(panel.layer_surface, 4, ("u", INTERACTIVITY_NONE))  # set_keyboard_interactivity
        conn.send(panel.surface, 6)
        left = conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 2)
        check(left.args("uo")[1] == panel.surface, "a panel set to no keyboard interactivity loses the keyboard")
        check(entered() in (window.surface, other.surface), "... and a window gets it")


def popup(kiln):
    with Connection(kiln.client_env) as conn:
        panel = LayerSurface(conn, TOP, ANCHOR_BOTTOM | ANCHOR_LEFT | ANCHOR_RIGHT, (0, 30), zone=30)
        panel.map(GREEN)
        wm_base = conn.bind("xdg_wm_base", 1)
        compositor = conn.bind("wl_compositor", 4)
        positioner = conn.create("xdg_positioner", wm_base, 1)
        conn.send(positioner, 1, ("i", 120), ("i", 80))  # set_size
        conn.send(positioner, 2, ("i", 10), ("i", 0), ("i", 1), ("i", 1))  # set_anchor_rect
        conn.send(positioner, 3, ("u", 5))  # anchor: top left
        conn.send(positioner, 4, ("u", 7))  # gravity: top right, so it opens upwards, above the panel
        surface = conn.create("wl_surface", compositor, 0)
        xdg_surface = conn.create("xdg_surface", wm_base, 2, ("o", surface))
        popup = conn.create("xdg_popup", xdg_surface, 2, ("o", 0), ("o", positioner))  # get_popup, no xdg parent
        conn.send(panel.layer_surface, 5, ("o", popup))  # zwlr_layer_surface_v1.get_popup
        conn.send(surface, 6)
        placed = conn.dispatch_until(lambda e: e.obj == popup and e.opcode == 0)
        px, py, pw, ph = placed.args("iiii")
        configure = conn.dispatch_until(lambda e: e.obj == xdg_surface and e.opcode == 0)
        conn.send(xdg_surface, 4, ("u", configure.args("u")[0]))
        buffer = shm_buffer(conn, pw, ph, argb(YELLOW))
        conn.send(surface, 1, ("o", buffer), ("i", 0), ("i", 0))
        conn.send(surface, 2, ("i", 0), ("i", 0), ("i", pw), ("i", ph))
        conn.send(surface, 6)
        conn.roundtrip()
        box = box_of(kiln, YELLOW, "the panel's popup")
        check(box == (px, 450 + py, px + pw, 450 + py + ph) and box[3] <= 450,
              f"a layer surface's popup is drawn where it was placed, above the bottom panel ({box})")


def errors(kiln):
    with Connection(kiln.client_env) as conn:
        LayerSurface(conn, TOP, 0, (0, 0))
        error = expect_protocol_error(conn)
        check("zwlr_layer_surface_v1" in str(error) and ": 1 " in str(error),
              f"no anchor and size 0x0: invalid_size ({error})")
    with Connection(kiln.client_env) as conn:
        LayerSurface(conn, TOP, ANCHOR_TOP, (0, 20))
        error = expect_protocol_error(conn)
        check(": 1 " in str(error), f"width 0 anchored to the top only: invalid_size ({error})")
    for case in ("twice", "xdg parent", "inert"):
        with Connection(kiln.client_env) as conn:
            panel = LayerSurface(conn, TOP, ANCHOR_TOP | ANCHOR_LEFT | ANCHOR_RIGHT, (0, 20))
            panel.map(GREEN)
            wm_base = conn.bind("xdg_wm_base", 1)
            compositor = conn.bind("wl_compositor", 4)
            positioner = conn.create("xdg_positioner", wm_base, 1)
            conn.send(positioner, 1, ("i", 20), ("i", 20))
            conn.send(positioner, 2, ("i", 0), ("i", 0), ("i", 1), ("i", 1))
            parent = 0
            if case == "xdg parent":
                window = Toplevel(conn, "popup parent")
                parent = window.xdg_surface
            surface = conn.create("wl_surface", compositor, 0)
            xdg_surface = conn.create("xdg_surface", wm_base, 2, ("o", surface))
            popup = conn.create("xdg_popup", xdg_surface, 2, ("o", parent), ("o", positioner))
            if case == "inert":
                # Destroying the wl_surface under the popup is an error of its own; the get_popup after it
                # must not reach the popup's freed surface either way.
                conn.send(surface, 0)
            conn.send(panel.layer_surface, 5, ("o", popup))
            if case == "twice":
                conn.send(panel.layer_surface, 5, ("o", popup))
            error = expect_protocol_error(conn)
            check(kiln.alive(), f"get_popup with a popup that is {case}: the client's error ({error})")
    with Connection(kiln.client_env) as conn:
        # Never mapped, a configure unacknowledged, and a popup: destroying it dismisses the popup (wlroots 0.15
        # would leave the popup linked into the freed surface).
        unmapped = LayerSurface(conn, TOP, ANCHOR_TOP | ANCHOR_LEFT | ANCHOR_RIGHT, (0, 20))
        wm_base = conn.bind("xdg_wm_base", 1)
        positioner = conn.create("xdg_positioner", wm_base, 1)
        conn.send(positioner, 1, ("i", 20), ("i", 20))
        conn.send(positioner, 2, ("i", 0), ("i", 0), ("i", 1), ("i", 1))
        surface = conn.create("wl_surface", conn.bind("wl_compositor", 4), 0)
        xdg_surface = conn.create("xdg_surface", wm_base, 2, ("o", surface))
        popup = conn.create("xdg_popup", xdg_surface, 2, ("o", 0), ("o", positioner))
        conn.send(unmapped.layer_surface, 5, ("o", popup))
        conn.send(unmapped.layer_surface, 7)  # destroy
        conn.dispatch_until(lambda e: e.obj == popup and e.opcode == 1)
        check(True, "a layer surface destroyed before its map dismisses its popup (popup_done)")
        conn.send(popup, 0)
        conn.send(xdg_surface, 0)
        conn.send(surface, 0)
        conn.roundtrip()
        bar = LayerSurface(conn, TOP, ANCHOR_TOP | ANCHOR_LEFT | ANCHOR_RIGHT, (0, 20))
        check(bar.configured() == (640, 20), "kiln and other clients are unaffected")


def listening(kiln):
    """Kiln's socket file exists a moment before kiln listens: clients other than the wire one (swaybg, grim)
    start only once it does."""
    with Connection(kiln.client_env) as conn:
        conn.roundtrip()


def main():
    need("grim")
    for test in (swaybg_under_windows, exclusive_zone, waybar, stacking, keyboard, popup, errors):
        with Kiln() as kiln:
            listening(kiln)
            test(kiln)


if __name__ == "__main__":
    run_test(main)
