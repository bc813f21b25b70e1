#!/usr/bin/env python3
"""Two headless outputs (--outputs 2) at scales 1 and 2, side by side from kiln.ini: both are offered; a new window
opens on the output under the pointer; a window dragged across is drawn on both while it spans them and is told the
higher scale (wp_fractional_scale_v1), then the lower once wholly on the scale-1 output; an output turned off at run
time (unplugged through kiln_test_input_v1) sends its windows to the one that remains, told that output's scale, and its
panel too: the panel's client stays connected, is configured to the new output's width and shown there, and its
exclusive zone shrinks the maximized window there; the panel is closed only when the last output goes. Each output is
checked in its own screenshot (grim -o)."""
import struct
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402
from wayland_wire import Connection, Toplevel, expect_protocol_error, shm_buffer  # noqa: E402

GREEN = (0, 255, 0)
BLUE = 0xff0000ff
MAGENTA = 0xffff00ff
LAYOUT = (1440, 480)  # logical: 640x480 at scale 1, then 1600x960 at scale 2 (800x480 logical) right of it
BTN_LEFT = 0x110


def shot(kiln, output):
    return kiln.screenshot(output)


def green_on(kiln, output):
    return shot(kiln, output).bounding_box(GREEN, tolerance=4)


def scales(conn, fractional):
    conn.roundtrip()
    return [e.args("u")[0] for e in conn.take(fractional, 0)]


def maximized_configure(conn, window):
    """The size of the next xdg_toplevel.configure with the maximized state, acknowledged."""
    while True:
        event = conn.dispatch_until(lambda e: e.obj == window.toplevel and e.opcode == 0)
        conn.events.remove(event)
        window.wait_configure()
        width, height, states = event.args("iia")
        if 1 in struct.unpack(f"={len(states) // 4}I", states):
            return width, height


def draw_at_2(conn, surface, width, height, colour):
    """A buffer of 2 x (width x height) pixels at buffer scale 2, committed."""
    conn.send(surface, 8, ("i", 2))  # set_buffer_scale
    conn.send(surface, 1, ("o", shm_buffer(conn, 2 * width, 2 * height, colour)), ("i", 0), ("i", 0))
    conn.send(surface, 9, ("i", 0), ("i", 0), ("i", 2 * width), ("i", 2 * height))  # damage_buffer
    conn.send(surface, 6)
    conn.roundtrip()


def main():
    need("grim")
    need("wayland-info")
    with tempfile.TemporaryDirectory(prefix="kiln-outputs-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text("[output HEADLESS-1]\nmode=640x480\nscale=1\nposition=0,0\n"
                          "[output HEADLESS-2]\nmode=1600x960\nscale=2\nposition=640,0\n")
        with Kiln("--outputs", "2", "--test-input", "--config", str(config), size=None) as kiln:
            info = kiln.run(["wayland-info"], timeout=20).stdout
            check(info.count("interface: 'wl_output'") == 2, "--outputs 2: two wl_outputs are offered")
            one, two = shot(kiln, "HEADLESS-1"), shot(kiln, "HEADLESS-2")
            check((one.width, one.height, two.width, two.height) == (640, 480, 1600, 960),
                  f"each has its own mode ({one.width}x{one.height}, {two.width}x{two.height})")

            with Connection(kiln.client_env) as mover_conn, Connection(kiln.client_env) as conn:
                mover = VirtualPointer(mover_conn, LAYOUT)
                mover.move(960, 240)  # the middle of HEADLESS-2
                seat = conn.bind("wl_seat", 5)
                pointer = conn.create("wl_pointer", seat, 0)
                manager = conn.bind("wp_fractional_scale_manager_v1", 1)
                window = Toplevel(conn, "two outputs")
                fractional = conn.create("wp_fractional_scale_v1", manager, 1, ("o", window.surface))
                window.commit()
                window.map(200, 150, 0xff00ff00)
                box = kiln.wait_for(lambda: green_on(kiln, "HEADLESS-2"), "the window on HEADLESS-2")
                check(green_on(kiln, "HEADLESS-1") is None and (box[2] - box[0], box[3] - box[1]) == (400, 300),
                      f"a new window opens on the output under the pointer, drawn at its scale 2 ({box})")
                check(scales(conn, fractional)[-1:] == [240], "and it is told 240")

                # Drag it by xdg_toplevel.move, as a client's own title bar does.
                cx = 640 + (box[0] + box[2]) // 4
                cy = (box[1] + box[3]) // 4
                mover.move(cx, cy)
                mover.button(True)
                press = conn.dispatch_until(lambda e: e.obj == pointer and e.opcode == 3)  # wl_pointer.button
                conn.send(window.toplevel, 5, ("o", seat), ("u", press.args("u")[0]))  # move
                conn.roundtrip()
                for step in range(1, 5):
                    mover.move(cx - 80 * step, cy)  # 320 to the left: across the edge at x = 640
                left = kiln.wait_for(lambda: green_on(kiln, "HEADLESS-1"), "part of the window on HEADLESS-1")
                right = green_on(kiln, "HEADLESS-2")
                check(right is not None, f"spanning the edge it is drawn on both outputs ({left} and {right})")
                check(scales(conn, fractional) == [], "while it spans both it keeps the higher scale, 240")
                for step in range(1, 6):
                    mover.move(cx - 320 - 80 * step, cy)
                mover.button(False)
                conn.roundtrip()
                box = kiln.wait_for(lambda: (b := green_on(kiln, "HEADLESS-1")) and green_on(kiln, "HEADLESS-2") is None
                                    and b, "the window wholly on HEADLESS-1")
                check((box[2] - box[0], box[3] - box[1]) == (200, 150), f"moved onto HEADLESS-1, drawn at scale 1 ({box})")
                told = kiln.wait_for(lambda: scales(conn, fractional), "a new preferred scale")
                check(told[-1:] == [120], f"and told the scale it is on now, 120 ({told})")

                # A panel with a 20 px exclusive zone on HEADLESS-1 (the output under the pointer now), mapped.
                compositor = conn.bind("wl_compositor", 4)
                panel_surface = conn.create("wl_surface", compositor, 0)
                panel = conn.create("zwlr_layer_surface_v1", conn.bind("zwlr_layer_shell_v1", 4), 0,
                                    ("o", panel_surface), ("o", 0), ("u", 2), ("s", "panel"))  # top layer
                conn.send(panel, 0, ("u", 0), ("u", 20))  # set_size: full width, 20 high
                conn.send(panel, 1, ("u", 1 | 4 | 8))  # set_anchor: top, left, right
                conn.send(panel, 2, ("i", 20))  # set_exclusive_zone
                conn.send(panel_surface, 6)
                configure = conn.dispatch_until(lambda e: e.obj == panel and e.opcode == 0)
                serial, width, height = configure.args("uuu")
                check((width, height) == (640, 20), f"a panel on HEADLESS-1 is configured its width ({width}x{height})")
                conn.send(panel, 6, ("u", serial))  # ack_configure
                conn.send(panel_surface, 1, ("o", shm_buffer(conn, width, height, 0xffff00ff)), ("i", 0), ("i", 0))
                conn.send(panel_surface, 6)
                kiln.wait_for(lambda: shot(kiln, "HEADLESS-1").bounding_box((255, 0, 255), tolerance=4),
                              "the panel on HEADLESS-1")

                # A maximized window on HEADLESS-2, all of it (no panel there yet).
                mover.move(1040, 240)
                big = Toplevel(conn, "maximized")
                big.commit()
                big.map(100, 80, BLUE)
                conn.take(big.toplevel, 0)  # its first configure, acknowledged by map()
                conn.send(big.toplevel, 9)  # set_maximized
                size = maximized_configure(conn, big)
                check(size == (800, 480), f"a maximized window on HEADLESS-2 is configured to all of it ({size})")
                draw_at_2(conn, big.surface, *size, BLUE)
                box = kiln.wait_for(lambda: shot(kiln, "HEADLESS-2").bounding_box((0, 0, 255), tolerance=4),
                                    "the maximized window on HEADLESS-2")
                check(box == (0, 0, 1600, 960), f"and fills it ({box})")

                # Unplug HEADLESS-1 (kiln_test_input_v1: wlroots 0.15 cannot turn a headless output off, and it has
                # no cable): its window goes to the output that is left.
                conn.roundtrip()
                conn.take(panel)  # what came before the unplug (a configure answering its first buffer's commit)
                unplug = mover_conn.bind("kiln_test_input_v1", 4)
                mover_conn.send(unplug, 18, ("s", "HEADLESS-1"))  # unplug_output
                mover_conn.roundtrip()
                event = conn.dispatch_until(lambda e: e.obj == panel)  # configure (0) or closed (1)
                conn.events.remove(event)  # taken: what stays queued of the panel's later is counted below
                check(event.opcode == 0, f"its panel is not closed but configured again ({event.opcode})")
                serial, width, height = event.args("uuu")
                check((width, height) == (800, 20), f"to the width of HEADLESS-2, the output left ({width}x{height})")
                conn.send(panel, 6, ("u", serial))  # ack_configure
                draw_at_2(conn, panel_surface, width, height, MAGENTA)
                box = kiln.wait_for(lambda: shot(kiln, "HEADLESS-2").bounding_box((255, 0, 255), tolerance=4),
                                    "the panel on HEADLESS-2")
                check(box == (0, 0, 1600, 40), f"and it is shown across the top of HEADLESS-2 at scale 2 ({box})")
                sizes = [maximized_configure(conn, big)]
                while sizes[-1] != (800, 460) and len(sizes) < 4:
                    sizes.append(maximized_configure(conn, big))
                check(sizes[-1] == (800, 460), f"its exclusive zone shrinks the maximized window there ({sizes})")
                draw_at_2(conn, big.surface, *sizes[-1], BLUE)
                box = kiln.wait_for(lambda: (b := shot(kiln, "HEADLESS-2").bounding_box((0, 0, 255), tolerance=4))
                                    and b[1] == 40 and b, "the maximized window below the panel")
                check(box == (0, 40, 1600, 960), f"which is drawn below the panel ({box})")
                check(conn.take(panel, 1) == [], "and the panel's client was never told closed")
                # Its move was its one configure: the layout's change, its commit and the window's frames since sent
                # none (nothing about it changed).
                conn.roundtrip()
                later = [e.args("uuu")[1:] for e in conn.take(panel, 0)]
                check(later == [], f"and it had one configure since the unplug (later ones: {later[:5]}, {len(later)})")
                info = kiln.run(["wayland-info"], timeout=20).stdout
                check(info.count("interface: 'wl_output'") == 1, "HEADLESS-1 unplugged: one wl_output is left")
                conn.send(big.surface, 1, ("o", 0), ("i", 0), ("i", 0))  # the maximized window unmapped, out of the way
                conn.send(big.surface, 6)
                box = kiln.wait_for(lambda: green_on(kiln, "HEADLESS-2"), "the window on HEADLESS-2 again")
                check((box[2] - box[0], box[3] - box[1]) == (400, 300),
                      f"the window of the output turned off is on the remaining one, whole ({box})")
                told = kiln.wait_for(lambda: scales(conn, fractional), "a new preferred scale")
                check(told[-1:] == [240], f"and is told that output's scale, 240 ({told})")

                # The last output goes: now the panel is closed, as nothing is left to show it on.
                mover_conn.send(unplug, 18, ("s", "HEADLESS-2"))
                mover_conn.roundtrip()
                conn.dispatch_until(lambda e: e.obj == panel and e.opcode == 1)  # zwlr_layer_surface_v1.closed
                check(True, "HEADLESS-2, the last output, unplugged: the panel is closed")
            with Connection(kiln.client_env) as conn:
                conn.send(conn.bind("kiln_test_input_v1", 4), 18, ("s", "HEADLESS-9"))
                error = expect_protocol_error(conn)
                check("kiln_test_input_v1" in str(error), f"unplugging an output kiln lacks is an error ({error})")
            check(kiln.alive(), "kiln is alive")


run_test(main)
