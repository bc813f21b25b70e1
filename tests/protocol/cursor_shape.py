#!/usr/bin/env python3
"""wp_cursor_shape_manager_v1 (v2) on headless kiln: a client with the pointer's focus names a shape and kiln draws it
from the xcursor theme (a crosshair's hotspot is its centre, so it reaches left of and above the pointer, where the
arrow does not); a stale serial and another client are ignored; at output scale 2 the theme's larger image is drawn;
shapes the version does not define are the device's invalid_shape error."""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from cursor_pixels import drawn_near  # noqa: E402
from kiln_harness import Kiln, check, need, run_test, skip  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402
from wayland_wire import Connection, Toplevel, expect_protocol_error  # noqa: E402

THEME = "Adwaita"
WINDOW = (0x33, 0x66, 0x99)  # Toplevel.map's colour
CROSSHAIR, TEXT, DND_ASK = 8, 9, 35
LOGICAL = (640, 480)


def theme_installed():
    return any((Path(d) / THEME / "cursors" / "crosshair").exists()
               for d in (Path.home() / ".icons", Path("/usr/share/icons")))


def centred_on(box, point, margin):
    return box[0] <= point[0] - margin and box[1] <= point[1] - margin and box[2] > point[0] + margin and \
        box[3] > point[1] + margin


def session(scale):
    """One kiln at `scale`; returns the crosshair's box (in output pixels) around the pointer."""
    with tempfile.TemporaryDirectory(prefix="kiln-cursor-shape-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text(f"[output HEADLESS-1]\nscale={scale}\n")
        size = f"{LOGICAL[0] * scale}x{LOGICAL[1] * scale}"
        with Kiln("--config", str(config), size=size, env={"XCURSOR_THEME": THEME, "XCURSOR_SIZE": "24"}) as kiln:
            with Connection(kiln.client_env) as conn, Connection(kiln.client_env) as other:
                check(conn.globals.get("wp_cursor_shape_manager_v1", (0, 0))[1] == 2,
                      f"kiln offers wp_cursor_shape_manager_v1 version 2 ({conn.globals.get('wp_cursor_shape_manager_v1')})")
                seat = conn.bind("wl_seat", 5)
                wl_pointer = conn.create("wl_pointer", seat, 0)
                manager = conn.bind("wp_cursor_shape_manager_v1", 2)
                device = conn.create("wp_cursor_shape_device_v1", manager, 1, ("o", wl_pointer))  # get_pointer
                window = Toplevel(conn, "cursor shape")
                window.commit()
                window.map(400, 300)
                box = kiln.wait_for(lambda: kiln.screenshot().bounding_box(WINDOW), "the window on screen")
                point = ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)  # output pixels
                mover = VirtualPointer(other, LOGICAL)
                mover.move(point[0] // scale, point[1] // scale)
                enter = conn.dispatch_until(lambda e: e.obj == wl_pointer and e.opcode == 0)
                serial = enter.args("u")[0]
                arrow = kiln.wait_for(lambda: drawn_near(kiln.screenshot(), point, WINDOW, radius=80), "the default arrow")
                check(not centred_on(arrow, point, 3), f"scale {scale}: the default arrow starts at the pointer {arrow}")

                # Another client (the one moving the pointer has no window under it) and a stale serial: ignored.
                other_manager = other.bind("wp_cursor_shape_manager_v1", 2)
                other_pointer = other.create("wl_pointer", other.bind("wl_seat", 5), 0)
                other_device = other.create("wp_cursor_shape_device_v1", other_manager, 1, ("o", other_pointer))
                other.send(other_device, 1, ("u", serial), ("u", CROSSHAIR))
                other.roundtrip()
                conn.send(device, 1, ("u", serial + 1000), ("u", CROSSHAIR))
                conn.roundtrip()
                # Each request is answered before kiln's next frame: one more frame callback, then look.
                window.commit()
                conn.roundtrip()
                still = kiln.wait_for(lambda: drawn_near(kiln.screenshot(), point, WINDOW, radius=80), "the cursor")
                check(still == arrow, f"another client's shape and a serial never sent are ignored ({still})")

                conn.send(device, 1, ("u", serial), ("u", CROSSHAIR))  # set_shape
                conn.roundtrip()
                cross = kiln.wait_for(lambda: (b := drawn_near(kiln.screenshot(), point, WINDOW, radius=80)) and
                                      centred_on(b, point, 3 * scale) and b, "the crosshair around the pointer")
                check(True, f"scale {scale}: set_shape(crosshair) draws the theme's crosshair centred on the pointer "
                            f"{cross}")

                # v2's dnd_ask on a v2 device is fine; on a v1 device it and 0 are errors.
                conn.send(device, 1, ("u", serial), ("u", DND_ASK))
                conn.roundtrip()
                v1 = conn.create("wp_cursor_shape_device_v1", conn.bind("wp_cursor_shape_manager_v1", 1), 1,
                                 ("o", wl_pointer))
                conn.send(v1, 1, ("u", serial), ("u", DND_ASK))
                error = expect_protocol_error(conn)
                check("wp_cursor_shape_device_v1" in str(error) and ": 1 " in str(error),
                      f"dnd_ask on a version 1 device is invalid_shape ({error})")
            with Connection(kiln.client_env) as conn:
                manager = conn.bind("wp_cursor_shape_manager_v1", 2)
                pointer = conn.create("wl_pointer", conn.bind("wl_seat", 5), 0)
                device = conn.create("wp_cursor_shape_device_v1", manager, 1, ("o", pointer))
                conn.send(device, 1, ("u", 0), ("u", 0))
                error = expect_protocol_error(conn)
                check("wp_cursor_shape_device_v1" in str(error) and ": 1 " in str(error),
                      f"shape 0 is invalid_shape ({error})")
            check(kiln.alive(), "kiln is alive after the clients' errors")
            return cross


def main():
    need("grim")
    if not theme_installed():
        skip(f"the {THEME} cursor theme is not installed (adwaita-icon-theme)")
    one = session(1)
    two = session(2)
    w1, w2 = one[2] - one[0], two[2] - two[0]
    check(w2 >= 1.7 * w1, f"at scale 2 the crosshair is drawn at the output's scale, about twice as large ({w1} -> {w2} px)")


run_test(main)
