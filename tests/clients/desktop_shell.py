#!/usr/bin/env python3
"""The clients suite's desktop-shell clients on headless kiln: swaybg's colour over the whole output, and waybar's
strip along the top with a maximized window fitted under its exclusive zone (clients_harness.py runs them)."""
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from clients_harness import (BLUE, GREEN, HEIGHT, RED, WIDTH, check, colors_in, Connection, main, near, need_client,
                             rows_of, start, wait_color)  # noqa: E402
from wayland_wire import Toplevel, shm_buffer  # noqa: E402


def swaybg(kiln, scratch):
    need_client("swaybg", "swaybg")
    start(kiln, ["swaybg", "-c", "#ff0000"])
    samples = (WIDTH // 16) * (HEIGHT // 16)
    kiln.wait_for(lambda: kiln.screenshot().count(RED, tolerance=0, step=16) == samples, "swaybg's red everywhere")
    check(True, f"swaybg -c '#ff0000': the whole {WIDTH}x{HEIGHT} output is red")


WAYBAR_CONFIG = '{"layer": "top", "position": "top", "height": 30, "modules-left": ["clock"], "modules-right": []}'
WAYBAR_STYLE = ("* { border: none; border-radius: 0; min-height: 0; font-size: 14px; } "
                "window#waybar { background-color: #00ff00; color: #000000; }")


def waybar(kiln, scratch):
    need_client("waybar", "waybar")
    config, style = Path(scratch) / "waybar.json", Path(scratch) / "waybar.css"
    config.write_text(WAYBAR_CONFIG)
    style.write_text(WAYBAR_STYLE)
    start(kiln, ["waybar", "-c", str(config), "-s", str(style)])
    wait_color(kiln, GREEN, "waybar's green strip", (WIDTH - 2, 28), tolerance=0)
    shot = kiln.screenshot()
    strip = rows_of(shot, GREEN, 0.9)
    check(strip == list(range(30)) and all(shot.at(x, y) == GREEN for x in (0, WIDTH - 1) for y in (0, 29)),
          f"waybar's strip runs along the top edge, edge to edge, 30 px high (rows {strip[:1]}..{strip[-1:]})")
    check(any(near(c, (0, 0, 0), 60) for c in colors_in(shot, (0, 0, 200, 30), 1)), "with its clock's text drawn")
    with Connection(kiln.client_env) as conn:
        window = Toplevel(conn, "maximized under waybar")
        conn.send(window.toplevel, 9)  # set_maximized, before the first commit (as foot --maximized does)
        window.commit()
        width, height = maximized_configure(conn, window)
        check((width, height) == (WIDTH, HEIGHT - 30),
              f"a maximized window is asked to fill the output less waybar's zone ({width}x{height})")
        buffer = shm_buffer(conn, width, height, 0xff0000ff)
        conn.send(window.surface, 1, ("o", buffer), ("i", 0), ("i", 0))  # attach
        conn.send(window.surface, 2, ("i", 0), ("i", 0), ("i", width), ("i", height))  # damage
        window.commit()
        conn.roundtrip()
        wait_color(kiln, BLUE, "the maximized window", (WIDTH - 2, HEIGHT - 32), tolerance=0)
        shot = kiln.screenshot()
        strip, window_rows = rows_of(shot, GREEN, 0.9), rows_of(shot, BLUE)
        check(strip == list(range(30)) and window_rows == list(range(30, HEIGHT)),
              f"the window fills the output right under the strip, which is still drawn over the top 30 rows "
              f"(window rows {window_rows[:1]}..{window_rows[-1:]}, {len(window_rows)} of them; strip rows "
              f"{strip[:1]}..{strip[-1:]})")


MAXIMIZED = 1  # xdg_toplevel.state


def maximized_configure(conn, window):
    """Acks configures until one says maximized (wlroots may answer set_maximized before the initial commit is
    read); returns its size."""
    while True:
        event = conn.dispatch_until(lambda e: e.obj == window.toplevel and e.opcode == 0)
        conn.events.remove(event)
        width, height, states = event.args("iia")
        window.wait_configure()
        if MAXIMIZED in struct.unpack(f"={len(states) // 4}I", states):
            return width, height


CASES = {f.__name__: f for f in (swaybg, waybar)}


if __name__ == "__main__":
    main(CASES)
