#!/usr/bin/env python3
"""A bar: Debian's waybar, its sway/workspaces module unchanged, inside kiln over kiln's sway IPC (SWAYSOCK): with a
window on workspace 1 the bar shows one focused button; Super+2 (a virtual keyboard) makes the bar's pixels change
to two buttons with the focused colour on the second; a click on the first button (a virtual pointer: waybar sends
its own `workspace "1"` command) switches back, kiln's screen shows workspace 1's window again, and the bar's
pixels are the first screenshot's again (a state shown, not an animation). On two outputs, a bar on each shows its
own output's workspaces, and a switch changes the focused output's bar only. Skips (77) without waybar."""
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, client_binary, kiln_binary, need, rgb, run_test  # noqa: E402
from virtual_input import SUPER, VirtualKeyboard, VirtualPointer  # noqa: E402
from wayland_wire import Connection  # noqa: E402

BAR_HEIGHT = 30
# The bar's colours (style.css): the focused workspace's button, the others', the bar.
FOCUSED, OTHER, BAR = (0xe0, 0x20, 0x20), (0x20, 0x40, 0xc0), (0x10, 0x10, 0x10)
GREEN = "20a040"
STYLE = f"""* {{ font-family: sans-serif; font-size: 14px; min-height: 0; border: none; border-radius: 0;
       box-shadow: none; text-shadow: none; transition: none; }}
window#waybar {{ background: #101010; }}
#workspaces button {{ background: #2040c0; color: #ffffff; padding: 0 10px; }}
#workspaces button:hover {{ background: #2040c0; }}
#workspaces button.focused {{ background: #e02020; }}
#workspaces button.focused:hover {{ background: #e02020; }}
"""


def bar_of(kiln, output=None):
    """The bar's rows of the screen (of `output` alone if named): (its pixels, the focused button's box, the other
    buttons' box)."""
    shot = kiln.screenshot(output)
    rows = shot.pixels[:shot.width * BAR_HEIGHT * 3]
    strip = type(shot)(shot.width, BAR_HEIGHT, rows)
    return rows, strip.bounding_box(FOCUSED, tolerance=4), strip.bounding_box(OTHER, tolerance=4)


def two_buttons(bar):
    _, focused, other = bar
    return focused is not None and other is not None and focused[0] > other[0]


def main():
    need("waybar")
    with tempfile.TemporaryDirectory(prefix="kiln-sway-bar-") as tmp:
        tmp = Path(tmp)
        config = tmp / "config"
        config.write_text(json.dumps({"layer": "top", "position": "top", "height": BAR_HEIGHT,
                                      "modules-left": ["sway/workspaces"]}))
        style = tmp / "style.css"
        style.write_text(STYLE)
        seen_env = tmp / "startup-env"
        with Kiln("-s", f"echo \"$SWAYSOCK\" > {seen_env}") as kiln:
            kiln.wait_for(lambda: seen_env.exists() and seen_env.read_text().strip(), "the startup command's env")
            swaysock = seen_env.read_text().strip()
            # SWAYSOCK as kiln exports it; a private config home so that no user's waybar config is read.
            bar = kiln.spawn(["waybar", "-c", str(config), "-s", str(style)],
                             env={"SWAYSOCK": swaysock, "XDG_CONFIG_HOME": str(tmp / "xdg"), "HOME": str(tmp)})
            kiln.wait_for(lambda: bar_of(kiln)[1] is not None, "waybar's bar with the focused button (red)",
                          timeout=30)
            window = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "200x100", "--color", GREEN])
            kiln.wait_for(lambda: kiln.screenshot().count(rgb(GREEN), step=4) > 500, "a window on workspace 1")
            first, focused, other = bar_of(kiln)
            check(focused[0] < 5 and focused[3] == BAR_HEIGHT and other is None,
                  f"the bar: one button, focused, at the left ({focused}; no other button: {other})")

            with Connection(kiln.client_env) as conn:
                seat = conn.bind("wl_seat", 5)
                keyboard = conn.create("wl_keyboard", seat, 1)
                keymap = conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 0)
                VirtualKeyboard(conn, seat, keymap).press(SUPER, "2")
                kiln.wait_for(lambda: bar_of(kiln)[0] != first, "Super+2: the bar's pixels change")
                kiln.wait_for(lambda: two_buttons(bar_of(kiln)), "to two buttons")
                second, focused2, other2 = bar_of(kiln)
                check(other2[0] < 5 and focused2[0] >= other2[2] - 1,
                      f"workspace 1's button now the other colour at the left ({other2}), the focused one to its "
                      f"right ({focused2})")
                check(kiln.screenshot().count(rgb(GREEN), step=4) == 0, "and workspace 1's window is hidden")

                # A click on workspace 1's button: waybar itself asks kiln to switch back.
                pointer = VirtualPointer(conn, (640, 480))
                x, y = (other2[0] + other2[2]) // 2, BAR_HEIGHT // 2
                pointer.move(x, y)
                pointer.button(True)
                pointer.button(False)
                pointer.move(600, 400)  # off the bar: no hover state in the last screenshot
            kiln.wait_for(lambda: kiln.screenshot().count(rgb(GREEN), step=4) > 500,
                          "a click on the bar's button 1: workspace 1's window is shown again")
            kiln.wait_for(lambda: bar_of(kiln)[0] == first, "and the bar's pixels are the first screenshot's again")
            check(bar.poll() is None and window.poll() is None, "waybar and the window still run")
            check(kiln.alive(), "kiln still runs")

        # Two outputs, a bar on each: each shows its own output's workspaces (waybar filters on "output"); a switch
        # on the focused output changes its bar only.
        with Kiln("--outputs", "2") as kiln:
            swaysock = str(Path(kiln.runtime) / f"kiln-{kiln.socket}-sway.sock")
            kiln.wait_for(lambda: Path(swaysock).exists(), "the sway IPC socket")
            kiln.spawn(["waybar", "-c", str(config), "-s", str(style)],
                       env={"SWAYSOCK": swaysock, "XDG_CONFIG_HOME": str(tmp / "xdg"), "HOME": str(tmp)})
            outputs = json.loads(kiln.run([kiln_binary(), "msg", "outputs"]).stdout)["outputs"]
            focused_output = next(o["name"] for o in outputs if o["focused"])
            other_output = next(o["name"] for o in outputs if not o["focused"])
            kiln.wait_for(lambda: bar_of(kiln, focused_output)[1] is not None and
                          bar_of(kiln, other_output)[2] is not None, "a bar on each output", timeout=30)
            left, right = bar_of(kiln, focused_output), bar_of(kiln, other_output)
            check(left[2] is None and right[1] is None,
                  f"{focused_output}'s bar: its workspace 1 focused ({left[1]}); {other_output}'s bar: its own "
                  f"workspace 1 shown, not focused ({right[2]})")
            with Connection(kiln.client_env) as conn:
                seat = conn.bind("wl_seat", 5)
                keyboard = conn.create("wl_keyboard", seat, 1)
                keymap = conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 0)
                VirtualKeyboard(conn, seat, keymap).press(SUPER, "2")
            kiln.wait_for(lambda: bar_of(kiln, focused_output)[0] != left[0],
                          f"Super+2: {focused_output}'s bar changes")
            time.sleep(0.5)  # long enough for a wrong update of the other bar to show
            check(bar_of(kiln, other_output)[0] == right[0], f"{other_output}'s bar stays as it was")


run_test(main)
