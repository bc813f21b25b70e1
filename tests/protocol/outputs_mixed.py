#!/usr/bin/env python3
"""Three headless outputs side by side at scales 1, 1.5 and 2 (--outputs 3, [output NAME] sections), each checked in
its own screenshot (grim -o): a fractional-scale window opened on each (the output under the pointer) is told that
output's scale and its 1-px checkerboard shows pixel for pixel; the cursor crossing from the scale-1 output to the
1.5 one keeps its logical position (no jump) and is the theme's own image at each output's scale, drawn on both
while it straddles the edge; fullscreen and maximize fill the output the window is on and no other; a panel on each
output (layer-shell, by wl_output) is configured to that output and drawn at its scale; unplugging the 1.5 output
moves its window and its panel to one that is left (the window told that output's scale, the panel configured
again there, its client never told closed), and loses no window and no other panel."""
import struct
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from checkerboard import checkerboard, checkerboard_on_screen  # noqa: E402
from kiln_harness import Kiln, check, need, run_test, skip  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402
from wayland_wire import Connection, Toplevel, shm_buffer  # noqa: E402
from xcursor_file import best_size, drawn_near, theme_cursor  # noqa: E402

OUTPUTS = [("HEADLESS-1", 1.0, (640, 480), 0), ("HEADLESS-2", 1.5, (960, 720), 640),
           ("HEADLESS-3", 2.0, (1280, 960), 1280)]  # name, scale, mode, logical x; each 640x480 logical
LAYOUT = (1920, 480)
LOGICAL = (101, 81)
GREEN, MAGENTA = 0xff00ff00, 0xffff00ff
BLACK = (0, 0, 0)


def shot(kiln, output):
    return kiln.screenshot(output)


def rounded(length, scale):
    return int(length * scale + 0.5)


def named_outputs(conn):
    """{name: wl_output} for every wl_output global (version 4, which names them)."""
    registry = conn.create("wl_registry", 1, 1)
    conn.roundtrip()
    outputs = {}
    for event in conn.take(registry, 0):
        name, interface, _ = event.args("usu")
        if interface == "wl_output":
            obj = conn.new_id("wl_output")
            conn.send(registry, 0, ("u", name), ("s", interface), ("u", 4), ("n", obj))
            conn.roundtrip()
            outputs[[e.args("s")[0] for e in conn.take(obj, 4)][0]] = obj
    return outputs


class Window:
    """A fractional-scale toplevel drawing with wp_viewporter at the scale it is told."""

    def __init__(self, conn, title):
        self.conn = conn
        self.toplevel = Toplevel(conn, title)
        self.fractional = conn.create("wp_fractional_scale_v1", conn.bind("wp_fractional_scale_manager_v1", 1), 1,
                                      ("o", self.toplevel.surface))
        self.viewport = conn.create("wp_viewport", conn.bind("wp_viewporter", 1), 1, ("o", self.toplevel.surface))
        self.toplevel.commit()
        self.size = self.configured()

    def configured(self, state=None):
        """The size (0 x 0: the client's choice) of the next configure, or of the next with xdg_toplevel `state`
        (1 maximized, 2 fullscreen) among its states; each configure on the way is acknowledged."""
        while True:
            event = self.conn.dispatch_until(lambda e: e.obj == self.toplevel.toplevel and e.opcode == 0)
            self.conn.events.remove(event)
            self.toplevel.wait_configure()
            width, height, states = event.args("iia")
            if state is None or state in struct.unpack(f"={len(states) // 4}I", states):
                return width, height

    def told(self):
        self.conn.roundtrip()
        return [e.args("u")[0] for e in self.conn.take(self.fractional, 0)]

    def draw(self, scale, logical, buffer):
        self.conn.send(self.viewport, 2, ("i", logical[0]), ("i", logical[1]))  # set_destination
        self.conn.send(self.toplevel.surface, 1, ("o", buffer), ("i", 0), ("i", 0))
        self.conn.send(self.toplevel.surface, 9, ("i", 0), ("i", 0), ("i", rounded(logical[0], scale)),
                       ("i", rounded(logical[1], scale)))
        self.toplevel.commit()
        self.conn.roundtrip()


def colour_box(kiln, output, colour):
    return shot(kiln, output).bounding_box(((colour >> 16) & 0xff, (colour >> 8) & 0xff, colour & 0xff), tolerance=2)


def main():
    need("grim")
    left_ptr = theme_cursor("Adwaita", "left_ptr")
    if not left_ptr:
        skip("the Adwaita cursor theme is not installed (adwaita-icon-theme)")
    with tempfile.TemporaryDirectory(prefix="kiln-outputs-mixed-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text("".join(f"[output {name}]\nmode={mode[0]}x{mode[1]}\nscale={scale:g}\nposition={x},0\n"
                                  for name, scale, mode, x in OUTPUTS))
        env = {"XCURSOR_THEME": "Adwaita", "XCURSOR_SIZE": "24"}
        with Kiln("--outputs", "3", "--test-input", "--config", str(config), size=None, env=env) as kiln, \
                Connection(kiln.client_env) as mover_conn, Connection(kiln.client_env) as conn:
            mover = VirtualPointer(mover_conn, LAYOUT)
            for name, scale, mode, x in OUTPUTS:
                image = shot(kiln, name)
                check((image.width, image.height) == mode, f"{name} is {mode[0]}x{mode[1]} at scale {scale:g}")

            # A window on each output, opened with the pointer there.
            windows = {}
            for name, scale, mode, x in OUTPUTS:
                mover.move(x + 20, 20)
                window = Window(conn, f"on {name}")
                # Before its first buffer a window is on no output and is told the highest scale of all; once
                # mapped, the scale of the output it opened on, and it draws again at that.
                first = window.told()[-1]
                window.draw(first / 120, LOGICAL, checkerboard(conn, rounded(LOGICAL[0], first / 120),
                                                              rounded(LOGICAL[1], first / 120)))
                told = [first] + (kiln.wait_for(window.told, "a new preferred scale") if first != scale * 120 else [])
                check(told[-1] == round(scale * 120), f"a window opened with the pointer on {name} is told "
                                                      f"{round(scale * 120)} once mapped ({told})")
                size = (rounded(LOGICAL[0], scale), rounded(LOGICAL[1], scale))
                window.draw(scale, LOGICAL, checkerboard(conn, *size))
                box, wrong = kiln.wait_for(lambda: (r := checkerboard_on_screen(shot(kiln, name), *size))[0] and r,
                                           f"the checkerboard on {name}")
                check((box[2] - box[0], box[3] - box[1]) == size and wrong == 0,
                      f"{name} (grim -o) shows its {size[0]}x{size[1]} checkerboard pixel for pixel at {box[:2]} "
                      f"({wrong} wrong)")
                windows[name] = window
            for name, *_ in OUTPUTS[:2]:
                check(colour_box(kiln, name, 0xff0000) is not None, f"and {name}'s window is still there")

            # The cursor across the edge between scale 1 and scale 1.5, at y = 400 (under the windows).
            for lx, expect in ((620, [("HEADLESS-1", 1.0, 0)]), (636, [("HEADLESS-1", 1.0, 0), ("HEADLESS-2", 1.5, 640)]),
                               (660, [("HEADLESS-2", 1.5, 640)])):
                mover.move(lx, 400)
                for name, scale, x in expect:
                    nominal = best_size(left_ptr, int(24 * scale))
                    point = (rounded(lx - x, scale) if lx >= x else -rounded(x - lx, scale), rounded(400, scale))
                    at = kiln.wait_for(lambda: drawn_near(shot(kiln, name), left_ptr, nominal, point, BLACK),
                                       f"the {nominal} px arrow on {name} at {point}")
                    check(True, f"pointer at logical x {lx}: on {name} the theme's {nominal} px arrow, its hotspot "
                                f"on pixel {at} = logical ({x + at[0] / scale:g}, {at[1] / scale:g}), no jump")

            # Fullscreen on HEADLESS-2 fills it and no other output; maximize on HEADLESS-3 likewise.
            mover.move(10, 470)  # the cursor out of the way, on HEADLESS-1's corner
            two = windows["HEADLESS-2"]
            conn.send(two.toplevel.toplevel, 11, ("o", 0))  # set_fullscreen, no output named
            size = two.configured(state=2)
            check(size == (640, 480), f"fullscreen: the HEADLESS-2 window is configured to its 640x480 ({size})")
            two.draw(1.5, size, shm_buffer(conn, 960, 720, GREEN))
            kiln.wait_for(lambda: shot(kiln, "HEADLESS-2").count((0, 255, 0), tolerance=0, step=8) == 120 * 90,
                          "HEADLESS-2 all green")
            check(colour_box(kiln, "HEADLESS-1", GREEN) is None and colour_box(kiln, "HEADLESS-3", GREEN) is None,
                  "and it covers all of HEADLESS-2 and nothing of the others")
            conn.send(two.toplevel.toplevel, 12)  # unset_fullscreen
            conn.roundtrip()
            # Larger than the others from now on, so no other window can hide all of it.
            two.draw(1.5, (161, 121), shm_buffer(conn, rounded(161, 1.5), rounded(121, 1.5), GREEN))
            three = windows["HEADLESS-3"]
            conn.send(three.toplevel.toplevel, 9)  # set_maximized
            size = three.configured(state=1)
            check(size == (640, 480), f"maximize: the HEADLESS-3 window is configured to its 640x480 ({size})")
            three.draw(2.0, size, checkerboard(conn, 1280, 960))
            box, wrong = kiln.wait_for(lambda: (r := checkerboard_on_screen(shot(kiln, "HEADLESS-3"), 1280, 960))[0]
                                       and r, "HEADLESS-3 filled")
            check(box[:2] == (0, 0) and wrong == 0, f"and fills HEADLESS-3 pixel for pixel ({box}, {wrong} wrong)")
            check(colour_box(kiln, "HEADLESS-2", GREEN) is not None, "the HEADLESS-2 window is still green there")

            # A panel on each output, by its wl_output.
            outputs = named_outputs(conn)
            check(sorted(outputs) == [name for name, *_ in OUTPUTS], f"three named wl_outputs ({sorted(outputs)})")
            compositor = conn.bind("wl_compositor", 4)
            shell = conn.bind("zwlr_layer_shell_v1", 4)
            panels = {}
            for name, scale, mode, x in OUTPUTS:
                surface = conn.create("wl_surface", compositor, 0)
                panel = conn.create("zwlr_layer_surface_v1", shell, 0, ("o", surface), ("o", outputs[name]),
                                    ("u", 3), ("s", "panel"))  # overlay: above the maximized window
                conn.send(panel, 0, ("u", 0), ("u", 20))  # set_size: full width, 20 high
                conn.send(panel, 1, ("u", 1 | 4 | 8))  # set_anchor: top, left, right
                conn.send(surface, 6)
                configure = conn.dispatch_until(lambda e: e.obj == panel and e.opcode == 0)
                serial, width, height = configure.args("uuu")
                check((width, height) == (640, 20), f"the panel on {name} is configured {width}x{height}")
                conn.send(panel, 6, ("u", serial))
                conn.send(surface, 1, ("o", shm_buffer(conn, width, height, MAGENTA)), ("i", 0), ("i", 0))
                conn.send(surface, 6)
                panels[name] = panel
            for name, scale, mode, x in OUTPUTS:
                box = kiln.wait_for(lambda: colour_box(kiln, name, MAGENTA), f"the panel on {name}")
                check(box == (0, 0, mode[0], rounded(20, scale)),
                      f"{name} shows its panel across its top, {rounded(20, scale)} px high at its scale ({box})")

            # Unplug HEADLESS-2: its window goes to an output that is left, nothing else is lost (HEADLESS-3's window
            # back to its own size first, so nothing there covers the one coming).
            conn.send(three.toplevel.toplevel, 10)  # unset_maximized
            conn.roundtrip()
            three.draw(2.0, LOGICAL, checkerboard(conn, rounded(LOGICAL[0], 2), rounded(LOGICAL[1], 2)))
            kiln.wait_for(lambda: checkerboard_on_screen(shot(kiln, "HEADLESS-3"), 202, 162)[1] == 0,
                          "HEADLESS-3's window at its own size")
            conn.roundtrip()
            conn.take(panels["HEADLESS-2"])
            unplug = mover_conn.bind("kiln_test_input_v1", 4)
            mover_conn.send(unplug, 18, ("s", "HEADLESS-2"))
            mover_conn.roundtrip()
            event = conn.dispatch_until(lambda e: e.obj == panels["HEADLESS-2"])  # configure (0) or closed (1)
            check(event.opcode == 0 and list(event.args("uuu")[1:]) == [640, 20],
                  f"HEADLESS-2 unplugged: its panel is configured again, to the output it moved to, not closed "
                  f"({event.opcode}, {event.args('uuu')[1:] if event.opcode == 0 else ''})")
            conn.send(panels["HEADLESS-2"], 6, ("u", event.args("uuu")[0]))  # ack_configure
            where = kiln.wait_for(lambda: next((n for n in ("HEADLESS-1", "HEADLESS-3")
                                                if colour_box(kiln, n, GREEN)), None), "the green window again")
            scale = 1.0 if where == "HEADLESS-1" else 2.0
            told = kiln.wait_for(lambda: two.told(), "a new preferred scale")
            check(told[-1:] == [round(scale * 120)], f"its window is on {where} now, told {round(scale * 120)} ({told})")
            check(colour_box(kiln, "HEADLESS-1", 0xff0000) is not None, "HEADLESS-1's own window is still shown")
            check(colour_box(kiln, "HEADLESS-3", 0xff0000) is not None, "so is HEADLESS-3's")
            for name in ("HEADLESS-1", "HEADLESS-3"):
                check(colour_box(kiln, name, MAGENTA) is not None, f"and {name}'s panel")
            conn.roundtrip()
            check(conn.take(panels["HEADLESS-2"], 1) == [], "the moved panel's client was never told closed")
            check(kiln.alive(), "kiln is alive")


run_test(main)
