#!/usr/bin/env python3
"""[bindings] act on keys from a virtual keyboard (as wtype sends them): Super+Return starts the terminal= command,
Alt+Tab and Super+Tab move keyboard focus, Super+F and Super+Up ask for fullscreen and maximized, Super+Q sends the
focused window xdg_toplevel.close, Super+Shift+E quits kiln; the bound keys never reach the window, other keys do.
Ctrl+Alt+F2 is a VT switch (which headless kiln declines). Children see WAYLAND_DISPLAY, XDG_CURRENT_DESKTOP=kiln:wlroots
and XDG_SESSION_TYPE=wayland, and dbus-update-activation-environment gets them when a session bus is named."""
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402
from virtual_input import ALT, CTRL, KEY, SHIFT, SUPER, VirtualKeyboard, array_u32  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402

MAXIMIZED, FULLSCREEN = 1, 2  # xdg_toplevel.state


def wait_file(kiln, path, what):
    kiln.wait_for(lambda: path.exists() and path.stat().st_size > 0, what, timeout=10)


def main():
    with tempfile.TemporaryDirectory(prefix="kiln-bindings-") as tmp:
        tmp = Path(tmp)
        terminal_env = tmp / "terminal-env"
        startup_env = tmp / "startup-env"
        config = tmp / "kiln.ini"
        # The terminal is a command that writes its environment: Super+Return running it is the terminal opening.
        config.write_text(f"[bindings]\nterminal=env > {terminal_env}.part && mv {terminal_env}.part {terminal_env}\n"
                          f"[startup]\ncommand=env > {startup_env}.part && mv {startup_env}.part {startup_env}\n")
        # A stand-in for dbus-update-activation-environment, which kiln runs when a session bus is named.
        fake_bin = tmp / "bin"
        fake_bin.mkdir()
        dbus_args = tmp / "dbus-args"
        fake = fake_bin / "dbus-update-activation-environment"
        fake.write_text(f"#!/bin/sh\necho \"$@\" > {dbus_args}.part && mv {dbus_args}.part {dbus_args}\n")
        fake.chmod(0o755)
        env = {"PATH": f"{fake_bin}:{os.environ['PATH']}", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"}
        with Kiln("--config", str(config), env=env) as kiln, Connection(kiln.client_env) as conn:
            seat = conn.bind("wl_seat", 5)
            keyboard = conn.create("wl_keyboard", seat, 1)
            first, second = Toplevel(conn, "first"), Toplevel(conn, "second")

            def wait_focus(window):
                event = conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 1 and
                                            e.args("uo")[1] == window.surface)
                conn.events.remove(event)
                return array_u32(event.args("uoa")[2])

            def keys_seen():
                return [e.args("uuuu")[2] for e in conn.take(keyboard, 3)]

            first.commit()
            first.map(200, 150)
            wait_focus(first)
            second.commit()
            second.map(200, 150)
            wait_focus(second)
            keymap = [e for e in conn.events if e.obj == keyboard and e.opcode == 0][-1]
            keys = VirtualKeyboard(conn, seat, keymap)

            wait_file(kiln, startup_env, "the startup command to write its environment")
            env = dict(line.split("=", 1) for line in startup_env.read_text().splitlines() if "=" in line)
            check(env.get("WAYLAND_DISPLAY") == kiln.socket and env.get("XDG_CURRENT_DESKTOP") == "kiln:wlroots" and
                  env.get("XDG_SESSION_TYPE") == "wayland",
                  f"a startup command sees WAYLAND_DISPLAY={env.get('WAYLAND_DISPLAY')}, XDG_CURRENT_DESKTOP="
                  f"{env.get('XDG_CURRENT_DESKTOP')}, XDG_SESSION_TYPE={env.get('XDG_SESSION_TYPE')}")

            wait_file(kiln, dbus_args, "dbus-update-activation-environment to run")
            # DISPLAY too: Xwayland's (lazy by default), for X11 programs D-Bus starts.
            check(dbus_args.read_text().split() == ["WAYLAND_DISPLAY", "DISPLAY", "XDG_CURRENT_DESKTOP",
                                                     "XDG_SESSION_TYPE"],
                  f"with a session bus, kiln passes the session variables to D-Bus activation "
                  f"({dbus_args.read_text().strip()})")

            keys.press(SUPER, "Return")
            wait_file(kiln, terminal_env, "Super+Return to run terminal=")
            check("XDG_CURRENT_DESKTOP=kiln:wlroots" in terminal_env.read_text().splitlines(),
                  "Super+Return ran the terminal= command, in the session's environment")

            keys.press(ALT, "Tab")
            held = wait_focus(first)
            check(True, "Alt+Tab moved keyboard focus to the other window")
            check(held == [], f"its wl_keyboard.enter lists no key held: the Tab is kiln's ({held})")
            keys.press(SUPER, "Tab")
            wait_focus(second)
            check(True, "Super+Tab moved it back")
            if shutil.which("wtype"):
                result = kiln.run(["wtype", "-M", "logo", "-k", "Tab", "-m", "logo"])
                check(result.returncode == 0, f"wtype exits 0 ({result.stdout.strip()})")
                wait_focus(first)
                check(True, "wtype's Super+Tab (its own keyboard and keymap) moves focus too")
                keys.press(ALT, "Tab")
                wait_focus(second)
            conn.roundtrip()
            check(keys_seen() == [], "the windows saw none of the bound keys")

            keys.press(SUPER, "a")
            conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 3)
            check(keys_seen() == [KEY["a"], KEY["a"]], "an unbound Super+A reaches the focused window, press and release")

            def wait_state(window, state):
                return conn.dispatch_until(lambda e: e.obj == window.toplevel and e.opcode == 0 and
                                           state in array_u32(e.args("iia")[2]))

            keys.press(SUPER, "f")
            event = wait_state(second, FULLSCREEN)
            width, height, _ = event.args("iia")
            check((width, height) == (640, 480), f"Super+F: the window is asked to be fullscreen at 640x480 "
                  f"({width}x{height})")
            keys.press(SUPER, "f")
            conn.dispatch_until(lambda e: e.obj == second.toplevel and e.opcode == 0 and
                                FULLSCREEN not in array_u32(e.args("iia")[2]))
            check(True, "Super+F again: no longer fullscreen")
            keys.press(SUPER, "Up")
            event = wait_state(second, MAXIMIZED)
            check(event.args("iia")[:2] == [640, 480], "Super+Up: the window is asked to be maximized to the output")

            keys.press(CTRL | ALT, "F2")
            kiln.wait_for(lambda: "no VT to switch to: the headless backend has no session" in kiln.logs(),
                          "Ctrl+Alt+F2 to try a VT switch")
            check(keys_seen() == [], "Ctrl+Alt+F2 is kiln's (a VT switch; headless has no VT and says so)")

            keys.press(SUPER, "q")
            conn.dispatch_until(lambda e: e.obj == second.toplevel and e.opcode == 1)
            check(True, "Super+Q sent the focused window xdg_toplevel.close")
            check(not conn.take(first.toplevel, 1), "and only that window")
            check(kiln.alive(), "kiln is running (the window was asked, not killed)")

            keys.press(SUPER | SHIFT, "e", sync=False)
            status = kiln.proc.wait(10)
            check(status == 0, f"Super+Shift+E quit kiln with status 0 (got {status})")
            for event in conn.take(keyboard, 0):
                for fd in event.fds:
                    os.close(fd)


run_test(main)
