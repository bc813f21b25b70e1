#!/usr/bin/env python3
"""xdg-shell window states on headless kiln (640x480): maximize and fullscreen with their configure sizes and the
size and place restored after, maximized from the first commit, minimize, and keyboard focus going back to the
previously focused window; a taskbar (wlr-foreign-toplevel) activating, maximizing and minimizing windows."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check  # noqa: E402
from wayland_wire import Connection  # noqa: E402
from xdg_shell_client import (FULLSCREEN, MAXIMIZED, OUTPUT_H, OUTPUT_W, Input, run_cases, u32s, wait_box,
                              wait_box_sized, Window)  # noqa: E402


def maximize_and_fullscreen(kiln):
    with Connection(kiln.client_env) as conn:
        seat_input = Input(conn)
        window = Window(conn, "maximize")
        width, height, _ = window.show(200, 150, 0xff2040c0)
        check((width, height) == (0, 0), f"the first configure leaves the size to the client ({width}x{height})")
        home = wait_box_sized(kiln, 0xff2040c0, 200, 150, "the window is on screen")
        window.settle()

        conn.send(window.toplevel, 9)  # set_maximized
        width, height, states = window.next_configure()
        check((width, height) == (OUTPUT_W, OUTPUT_H) and MAXIMIZED in states,
              f"set_maximized: a configure with the output's usable area and the maximized state "
              f"({width}x{height}, states {sorted(states)})")
        window.draw(width, height, 0xff2040c0)
        wait_box(kiln, 0xff2040c0, (0, 0, OUTPUT_W, OUTPUT_H), "the maximized window covers the output")

        conn.send(window.toplevel, 10)  # unset_maximized
        width, height, states = window.next_configure()
        check((width, height) == (200, 150) and MAXIMIZED not in states,
              f"unset_maximized: the size from before comes back ({width}x{height}, states {sorted(states)})")
        window.draw(width, height, 0xff2040c0)
        wait_box(kiln, 0xff2040c0, home, "and the window goes back where it was")

        conn.send(window.toplevel, 11, ("o", 0))  # set_fullscreen, no output named
        width, height, states = window.next_configure()
        check((width, height) == (OUTPUT_W, OUTPUT_H) and FULLSCREEN in states,
              f"set_fullscreen: a configure with the output's size and the fullscreen state "
              f"({width}x{height}, states {sorted(states)})")
        window.draw(width, height, 0xffc02020)

        # A window that maps while another is fullscreen opens below it and does not take focus.
        other = Window(conn, "under the fullscreen one")
        other.show(200, 150, 0xff20c040)
        wait_box(kiln, 0xffc02020, (0, 0, OUTPUT_W, OUTPUT_H), "the fullscreen window covers the output")
        wait_box(kiln, 0xff20c040, None, "a window mapped later stays below the fullscreen one")
        check(seat_input.focused() == window.surface, "and the fullscreen window keeps keyboard focus")
        dialog = Window(conn, "dialog of the fullscreen one")
        conn.send(dialog.toplevel, 1, ("o", window.toplevel))  # set_parent
        dialog.show(100, 80, 0xffe0e0e0)
        x, y = (OUTPUT_W - 100) // 2, (OUTPUT_H - 80) // 2
        wait_box(kiln, 0xffe0e0e0, (x, y, x + 100, y + 80), "its dialog opens above it, centred on it")
        check(seat_input.focused() == dialog.surface, "with keyboard focus")
        dialog.unmap()
        check(seat_input.focused() == window.surface, "when the dialog unmaps, focus goes back to the fullscreen one")

        window.settle()
        conn.send(window.toplevel, 12)  # unset_fullscreen
        width, height, states = window.next_configure()
        check((width, height) == (200, 150) and FULLSCREEN not in states,
              f"unset_fullscreen restores the size ({width}x{height}, states {sorted(states)})")
        window.draw(width, height, 0xff2040c0)
        wait_box(kiln, 0xff2040c0, home, "and the place")
        seat_input.close()


def maximized_from_the_start(kiln):
    with Connection(kiln.client_env) as conn:
        window = Window(conn, "maximized from the start")
        conn.send(window.toplevel, 9)  # set_maximized before the initial commit (foot --maximized)
        window.commit()
        # wlroots 0.15 answers set_maximized with a configure of its own, which may go out before the initial
        # commit is read; the configure kiln sends for the initial commit is maximized.
        width, height, states = window.configure_until(lambda w, h, s: MAXIMIZED in s, "a maximized configure")
        check((width, height) == (OUTPUT_W, OUTPUT_H),
              f"set_maximized before the first commit: the initial configure is maximized ({width}x{height})")
        window.draw(OUTPUT_W, OUTPUT_H, 0xff806020)
        wait_box(kiln, 0xff806020, (0, 0, OUTPUT_W, OUTPUT_H), "and the window covers the output")
        window.settle()
        conn.send(window.toplevel, 10)
        width, height, states = window.next_configure()
        check((width, height) == (0, 0) and MAXIMIZED not in states,
              f"unmaximized, a window that never had a size of its own picks one ({width}x{height})")
        window.draw(300, 200, 0xff806020)
        box = wait_box_sized(kiln, 0xff806020, 300, 200, "and is placed whole on the output")
        check(box[0] >= 0 and box[1] >= 0 and box[2] <= OUTPUT_W and box[3] <= OUTPUT_H, f"inside it ({box})")


def minimize_and_focus_order(kiln):
    with Connection(kiln.client_env) as conn:
        seat_input = Input(conn)
        colors = {"a": 0xff3050a0, "b": 0xff50a030, "c": 0xffa03050}
        windows = {}
        for name, color in colors.items():
            windows[name] = Window(conn, name)
            windows[name].show(160, 120, color)
            wait_box_sized(kiln, color, 160, 120, f"window {name} is on screen")
        check(seat_input.focused() == windows["c"].surface, "the last window mapped has keyboard focus")

        conn.send(windows["c"].toplevel, 13)  # set_minimized
        wait_box(kiln, colors["c"], None, "a minimized window is hidden")
        check(seat_input.focused() == windows["b"].surface, "and focus goes to the window focused before it")

        windows["b"].unmap()
        check(seat_input.focused() == windows["a"].surface, "when the focused window unmaps, focus goes back to a")

        # A taskbar activates the minimized window: it shows again with focus.
        manager = conn.bind("zwlr_foreign_toplevel_manager_v1", 3)
        conn.roundtrip()
        handles = {}
        for event in conn.take(manager, 0):
            handle = event.args("n")[0]
            conn.interfaces[handle] = "zwlr_foreign_toplevel_handle_v1"
            conn.dispatch_until(lambda e: e.obj == handle and e.opcode == 5)  # done
            handles[[e.args("s")[0] for e in conn.events if e.obj == handle and e.opcode == 0][-1]] = handle
        def handle_states(name):
            events = [e for e in conn.events if e.obj == handles[name] and e.opcode == 4]
            return set(u32s(events[-1].args("a")[0])) if events else set()

        HANDLE_MAXIMIZED, HANDLE_MINIMIZED = 0, 1
        check(HANDLE_MINIMIZED in handle_states("c") and HANDLE_MINIMIZED not in handle_states("a"),
              "a taskbar sees the minimized window as minimized")
        conn.send(handles["c"], 4, ("o", seat_input.seat))  # activate
        wait_box_sized(kiln, colors["c"], 160, 120, "activating the minimized window shows it")
        check(seat_input.focused() == windows["c"].surface, "with keyboard focus")
        conn.roundtrip()
        check(HANDLE_MINIMIZED not in handle_states("c"), "and the taskbar sees it is no longer minimized")

        # A taskbar may maximize and minimize windows too.
        windows["a"].settle()
        conn.send(handles["a"], 0)  # set_maximized
        width, height, states = windows["a"].next_configure()
        check((width, height) == (OUTPUT_W, OUTPUT_H) and MAXIMIZED in states,
              f"a taskbar's set_maximized maximizes the window ({width}x{height}, states {sorted(states)})")
        conn.roundtrip()
        check(HANDLE_MAXIMIZED in handle_states("a"), "and its handle says so")
        conn.send(handles["c"], 2)  # set_minimized
        wait_box(kiln, colors["c"], None, "a taskbar's set_minimized hides the window")
        conn.roundtrip()
        check(HANDLE_MINIMIZED in handle_states("c"), "and its handle says so")
        seat_input.close()


if __name__ == "__main__":
    run_cases([maximize_and_fullscreen, maximized_from_the_start, minimize_and_focus_order])
