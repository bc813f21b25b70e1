#!/usr/bin/env python3
"""The protocols desktop clients use: a headless seat with keyboard and pointer, clipboard (wl-clipboard, primary
selection), virtual keyboard (wtype) and pointer, and decorations; each with a real round trip, on headless kiln."""
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402

NEW_GLOBALS = ["zwp_primary_selection_device_manager_v1", "zwlr_data_control_manager_v1",
               "zwp_virtual_keyboard_manager_v1", "zwlr_virtual_pointer_manager_v1", "zxdg_decoration_manager_v1",
               "org_kde_kwin_server_decoration_manager", "org_kde_kwin_idle", "zwp_idle_inhibit_manager_v1",
               "xdg_activation_v1", "zwlr_foreign_toplevel_manager_v1", "zwp_relative_pointer_manager_v1",
               "zwp_keyboard_shortcuts_inhibit_manager_v1"]
SEAT_POINTER, SEAT_KEYBOARD, SEAT_TOUCH = 1, 2, 4
BTN_LEFT = 0x110
TEXT = "text/plain;charset=utf-8"


def globals_listed(kiln):
    result = kiln.run(["wayland-info"])
    check(result.returncode == 0, f"wayland-info exits 0 (got {result.returncode})")
    listed = {line.split("'")[1] for line in result.stdout.splitlines() if line.startswith("interface: '")}
    for name in NEW_GLOBALS:
        check(name in listed, f"global {name} is listed")
    check("capabilities: pointer keyboard touch" in result.stdout,
          "wayland-info sees a seat with pointer, keyboard and touch")


def seat_capabilities(kiln):
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 5)
        conn.roundtrip()
        caps = [e.args("u")[0] for e in conn.take(seat, 0)]
        check(caps == [SEAT_POINTER | SEAT_KEYBOARD | SEAT_TOUCH],
              f"headless wl_seat has pointer, keyboard and touch (got {caps})")
        # wtype adds a virtual keyboard and removes it: the seat still has one, so no capabilities event comes.
        result = kiln.run(["wtype", "x"])
        check(result.returncode == 0, f"wtype exits 0 ({result.stdout.strip()})")
        conn.roundtrip()
        caps = [e.args("u")[0] for e in conn.take(seat, 0)]
        check(caps == [], f"a keyboard coming and going sends no capabilities event (got {caps})")


def wait_paste(kiln, argv, expected, timeout=10):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = kiln.run(argv, timeout=10)
        if last.returncode == 0 and last.stdout == expected:
            return last
        time.sleep(0.1)
    raise AssertionError(f"{' '.join(argv)} never printed {expected!r} (last: {last.returncode} {last.stdout!r})")


def clipboard(kiln):
    # wl-clipboard uses wlr-data-control: no window or focus needed.
    kiln.spawn(["wl-copy", "--foreground", "hello"])
    wait_paste(kiln, ["wl-paste", "--no-newline"], "hello")
    check(True, "wl-copy hello, then wl-paste prints hello")
    kiln.spawn(["wl-copy", "--foreground", "--primary", "middle"])
    wait_paste(kiln, ["wl-paste", "--primary", "--no-newline"], "middle")
    wait_paste(kiln, ["wl-paste", "--no-newline"], "hello")
    check(True, "wl-copy --primary middle, then wl-paste --primary prints middle and the clipboard still hello")


def primary_selection_from_focused_client(kiln):
    # A focused window sets the primary selection through zwp_primary_selection (the seat's request), and
    # wl-paste --primary reads it from that window's source.
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 5)
        keyboard = conn.create("wl_keyboard", seat, 1)
        manager = conn.bind("zwp_primary_selection_device_manager_v1", 1)
        device = conn.create("zwp_primary_selection_device_v1", manager, 1, ("o", seat))
        window = Toplevel(conn, "primary selection test")
        window.commit()
        window.map(200, 150)
        enter = conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 1)
        serial = enter.args("u")[0]
        check(True, f"the mapped window has keyboard focus (enter serial {serial})")
        source = conn.create("zwp_primary_selection_source_v1", manager, 0)
        conn.send(source, 0, ("s", TEXT))
        conn.send(device, 0, ("o", source), ("u", serial))
        conn.roundtrip()
        paste = kiln.spawn(["wl-paste", "--primary", "--no-newline"])
        send = conn.dispatch_until(lambda e: e.obj == source and e.opcode == 0, timeout=10)
        check(send.args("s")[0] == TEXT, f"wl-paste asks the window's source for {TEXT}")
        fd = send.fds[0]
        send.fds = []
        os.write(fd, b"from the window")
        os.close(fd)
        out, _ = paste.communicate(timeout=10)
        check(paste.returncode == 0 and out == b"from the window",
              f"wl-paste --primary prints the focused window's selection (got {paste.returncode} {out!r})")
        for event in conn.take(keyboard, 0):
            for fd in event.fds:
                os.close(fd)


def virtual_keyboard(kiln):
    need("stdbuf")
    wev = kiln.spawn(["stdbuf", "-oL", "wev", "-f", "wl_keyboard:enter", "-f", "wl_keyboard:key"])
    os.set_blocking(wev.stdout.fileno(), False)
    output = b""

    def wev_printed(text):
        nonlocal output
        chunk = wev.stdout.read()
        if chunk:
            output += chunk
        return text in output.decode(errors="replace")

    kiln.wait_for(lambda: wev_printed("wl_keyboard] enter"), "wev's window to get keyboard focus")
    result = kiln.run(["wtype", "kiln"])
    check(result.returncode == 0, f"wtype kiln exits 0 ({result.stdout.strip()})")
    for letter in "kiln":
        kiln.wait_for(lambda: wev_printed(f"sym: {letter} "), f"wev to print the key {letter}", timeout=5)
    text = output.decode(errors="replace")
    pressed = [line.split("sym: ")[1].split()[0] for line in text.splitlines() if "sym: " in line]
    check(all(letter in pressed for letter in "kiln"),
          f"wtype's virtual keyboard reached the focused wev window (keys {pressed})")


def virtual_pointer(kiln):
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 5)
        pointer = conn.create("wl_pointer", seat, 0)
        window = Toplevel(conn, "virtual pointer test")
        window.commit()
        window.map(400, 300)  # over the middle of the 640x480 output, wherever kiln cascades it
        manager = conn.bind("zwlr_virtual_pointer_manager_v1", 1)
        virtual = conn.new_id("zwlr_virtual_pointer_v1")  # create_virtual_pointer(seat, id): the id comes second
        conn.send(manager, 0, ("o", seat), ("n", virtual))
        conn.send(virtual, 1, ("u", 1), ("u", 232), ("u", 182), ("u", 640), ("u", 480))  # motion_absolute
        conn.send(virtual, 4)  # frame
        enter = conn.dispatch_until(lambda e: e.obj == pointer and e.opcode == 0)
        _, surface, sx, sy = enter.args("uoff")
        check(surface == window.surface and 0 < sx < 400 and 0 < sy < 300,
              f"an absolute move of the virtual pointer entered the window (surface {surface}, {sx}, {sy})")
        conn.send(virtual, 0, ("u", 2), ("f", 10.0), ("f", -5.0))  # relative motion
        conn.send(virtual, 4)
        motion = conn.dispatch_until(lambda e: e.obj == pointer and e.opcode == 2)
        _, mx, my = motion.args("uff")
        check((mx, my) == (sx + 10, sy - 5), f"a relative move of (10, -5) moved it to ({mx}, {my})")
        conn.send(virtual, 2, ("u", 3), ("u", BTN_LEFT), ("u", 1))  # button pressed
        conn.send(virtual, 4)
        conn.send(virtual, 2, ("u", 4), ("u", BTN_LEFT), ("u", 0))
        conn.send(virtual, 4)
        press = conn.dispatch_until(lambda e: e.obj == pointer and e.opcode == 3)
        _, _, button, state = press.args("uuuu")
        check(button == BTN_LEFT and state == 1, f"the window got the virtual left button press ({button}, {state})")
        conn.send(virtual, 8)  # destroy
        conn.roundtrip()


def decorations(kiln):
    with Connection(kiln.client_env) as conn:
        window = Toplevel(conn, "decoration test")
        manager = conn.bind("zxdg_decoration_manager_v1", 1)
        decoration = conn.create("zxdg_toplevel_decoration_v1", manager, 1, ("o", window.toplevel))
        conn.send(decoration, 1, ("u", 2))  # set_mode server_side
        window.commit()
        window.wait_configure()
        modes = [e.args("u")[0] for e in conn.take(decoration, 0)]
        check(modes == [1], f"asking for server-side, the first configure says client-side (got {modes})")
        # The spec asks for an xdg_surface.configure after each set_mode; wlroots repeats the decoration's mode only
        # when it changes.
        conn.send(decoration, 1, ("u", 2))
        window.wait_configure()
        modes = [e.args("u")[0] for e in conn.take(decoration, 0)]
        check(modes in ([], [1]), f"asking again is answered by an xdg_surface.configure, mode unchanged ({modes})")

        kde = conn.bind("org_kde_kwin_server_decoration_manager", 1)
        conn.roundtrip()
        modes = [e.args("u")[0] for e in conn.take(kde, 0)]
        check(modes == [1], f"KDE server-decoration's default mode is client (got {modes})")


def wait_listening(kiln):
    """Kiln's socket file exists a moment before kiln listens; the wire client waits that moment out."""
    with Connection(kiln.client_env) as conn:
        conn.roundtrip()


def close_keymaps(conn, keyboard):
    for event in conn.take(keyboard, 0):
        for fd in event.fds:
            os.close(fd)


def idle(kiln):
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 5)
        window = Toplevel(conn, "idle test")
        window.commit()
        window.map(200, 150)
        inhibit = conn.bind("zwp_idle_inhibit_manager_v1", 1)
        inhibitor = conn.create("zwp_idle_inhibitor_v1", inhibit, 1, ("o", window.surface))
        manager = conn.bind("org_kde_kwin_idle", 1)
        timeout = conn.create("org_kde_kwin_idle_timeout", manager, 0, ("o", seat), ("u", 300))
        conn.roundtrip()
        time.sleep(1.2)
        conn.roundtrip()
        check(conn.take(timeout) == [], "with an idle inhibitor, a 300 ms idle timeout stays quiet for 1.2 s")
        conn.send(inhibitor, 0)  # destroy
        conn.dispatch_until(lambda e: e.obj == timeout and e.opcode == 0, timeout=5)
        check(True, "without it, the timeout reports idle")
        pointers = conn.bind("zwlr_virtual_pointer_manager_v1", 1)
        virtual = conn.new_id("zwlr_virtual_pointer_v1")  # new ids go in order: after the manager's
        conn.send(pointers, 0, ("o", seat), ("n", virtual))
        conn.send(virtual, 0, ("u", 1), ("f", 3.0), ("f", 3.0))  # relative motion
        conn.send(virtual, 4)
        conn.dispatch_until(lambda e: e.obj == timeout and e.opcode == 1, timeout=5)
        check(True, "moving the (virtual) pointer reports resumed")


def activation(kiln):
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 5)
        keyboard = conn.create("wl_keyboard", seat, 1)
        first, second = Toplevel(conn, "first"), Toplevel(conn, "second")

        def wait_focus(window):
            event = conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 1 and
                                        e.args("uo")[1] == window.surface)
            conn.events.remove(event)
            return event.args("u")[0]

        first.commit()
        first.map(200, 150)
        wait_focus(first)
        second.commit()
        second.map(200, 150)
        serial = wait_focus(second)
        check(True, "the second window took keyboard focus when it mapped")
        manager = conn.bind("xdg_activation_v1", 1)

        def token(with_serial):
            obj = conn.create("xdg_activation_token_v1", manager, 1)
            if with_serial:
                conn.send(obj, 0, ("u", serial), ("o", seat))  # set_serial
            conn.send(obj, 2, ("o", second.surface))  # set_surface
            conn.send(obj, 3)  # commit
            return conn.dispatch_until(lambda e: e.obj == obj and e.opcode == 0).args("s")[0]

        conn.send(manager, 2, ("s", token(False)), ("o", first.surface))  # activate
        conn.roundtrip()
        time.sleep(0.3)
        conn.roundtrip()
        entered = [e for e in conn.events if e.obj == keyboard and e.opcode == 1]
        check(entered == [], "a token from no input event does not move focus")
        conn.send(manager, 2, ("s", token(True)), ("o", first.surface))
        wait_focus(first)
        check(True, "a token with the focused window's input serial gives the first window keyboard focus")
        close_keymaps(conn, keyboard)


def foreign_toplevels(kiln):
    ACTIVATED = 2
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 5)
        keyboard = conn.create("wl_keyboard", seat, 1)
        output = conn.bind("wl_output", 2)  # output_enter names only outputs the client bound
        manager = conn.bind("zwlr_foreign_toplevel_manager_v1", 3)
        windows = {}
        for name in ("first", "second"):
            window = Toplevel(conn, name)
            conn.send(window.toplevel, 3, ("s", f"kiln.test.{name}"))  # set_app_id
            window.commit()
            window.map(200, 150)
            windows[name] = window
        conn.roundtrip()

        handles = {}  # title -> handle id
        for event in conn.take(manager, 0):
            handle = event.args("n")[0]
            conn.interfaces[handle] = "zwlr_foreign_toplevel_handle_v1"
            conn.dispatch_until(lambda e: e.obj == handle and e.opcode == 5)  # done
            titles = [e.args("s")[0] for e in conn.events if e.obj == handle and e.opcode == 0]
            handles[titles[-1]] = handle

        def state(handle):
            events = [e for e in conn.events if e.obj == handle and e.opcode == 4]
            return set(array_u32(events[-1].args("a")[0])) if events else set()

        def app_id(handle):
            return [e.args("s")[0] for e in conn.events if e.obj == handle and e.opcode == 1][-1]

        check(sorted(handles) == ["first", "second"], f"a taskbar sees one handle per window ({sorted(handles)})")
        check(app_id(handles["first"]) == "kiln.test.first", "each with its app_id")
        check(ACTIVATED in state(handles["second"]) and ACTIVATED not in state(handles["first"]),
              "the focused (last mapped) window is the activated one")
        outputs = [e.args("o")[0] for e in conn.events if e.obj == handles["first"] and e.opcode == 2]
        check(outputs == [output], f"a handle names the output the window is on ({outputs})")

        conn.send(handles["first"], 4, ("o", seat))  # activate
        conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 1 and e.args("uo")[1] == windows["first"].surface)
        conn.roundtrip()
        check(ACTIVATED in state(handles["first"]) and ACTIVATED not in state(handles["second"]),
              "activating the first handle focuses that window, and the handles say so")

        conn.send(handles["second"], 5)  # close
        conn.dispatch_until(lambda e: e.obj == windows["second"].toplevel and e.opcode == 1)
        check(True, "closing the second handle sends that window xdg_toplevel.close")
        conn.send(windows["second"].toplevel, 0)  # the client obeys: xdg_toplevel.destroy
        conn.dispatch_until(lambda e: e.obj == handles["second"] and e.opcode == 6)
        check(True, "and when the window goes its handle is closed")
        close_keymaps(conn, keyboard)


def relative_pointer(kiln):
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 5)
        pointer = conn.create("wl_pointer", seat, 0)
        relative = conn.create("zwp_relative_pointer_v1", conn.bind("zwp_relative_pointer_manager_v1", 1), 1,
                               ("o", pointer))
        window = Toplevel(conn, "relative pointer test")
        window.commit()
        window.map(400, 300)
        manager = conn.bind("zwlr_virtual_pointer_manager_v1", 1)
        virtual = conn.new_id("zwlr_virtual_pointer_v1")
        conn.send(manager, 0, ("o", seat), ("n", virtual))
        conn.send(virtual, 1, ("u", 1), ("u", 232), ("u", 182), ("u", 640), ("u", 480))  # into the window
        conn.send(virtual, 4)
        conn.dispatch_until(lambda e: e.obj == pointer and e.opcode == 0)
        check(conn.take(relative) == [], "an absolute move sends no relative motion")
        conn.send(virtual, 0, ("u", 2), ("f", 7.0), ("f", -3.0))
        conn.send(virtual, 4)
        motion = conn.dispatch_until(lambda e: e.obj == relative and e.opcode == 0)
        _, _, dx, dy, ux, uy = motion.args("uuffff")
        check((dx, dy, ux, uy) == (7, -3, 7, -3), f"a relative move of (7, -3) arrives as relative motion "
              f"({dx}, {dy}, unaccelerated {ux}, {uy})")


def shortcuts_inhibit(kiln):
    MOD4 = 1 << 6  # the core modifiers' order in every xkb keymap: Shift Lock Control Mod1..Mod5
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 5)
        keyboard = conn.create("wl_keyboard", seat, 1)
        pointer = conn.create("wl_pointer", seat, 0)
        window = Toplevel(conn, "shortcuts inhibit test")
        window.commit()
        window.map(400, 300)
        conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 1)  # focused
        keymap = [e for e in conn.events if e.obj == keyboard and e.opcode == 0][-1]
        _, keymap_size = keymap.args("uu")  # format, (fd,) size

        manager = conn.bind("zwp_keyboard_shortcuts_inhibit_manager_v1", 1)
        inhibitor = conn.create("zwp_keyboard_shortcuts_inhibitor_v1", manager, 1, ("o", window.surface),
                                ("o", seat))
        conn.dispatch_until(lambda e: e.obj == inhibitor and e.opcode == 0)
        check(True, "an inhibitor on the focused window is active")

        # Super held on a virtual keyboard (with kiln's own keymap), then a left click on the window.
        keyboards = conn.bind("zwp_virtual_keyboard_manager_v1", 1)
        virtual_keyboard = conn.new_id("zwp_virtual_keyboard_v1")
        conn.send(keyboards, 0, ("o", seat), ("n", virtual_keyboard))
        conn.send(virtual_keyboard, 0, ("u", 1), ("u", keymap_size), fds=[keymap.fds[0]])
        conn.send(virtual_keyboard, 2, ("u", MOD4), ("u", 0), ("u", 0), ("u", 0))
        pointers = conn.bind("zwlr_virtual_pointer_manager_v1", 1)
        virtual_pointer = conn.new_id("zwlr_virtual_pointer_v1")
        conn.send(pointers, 0, ("o", seat), ("n", virtual_pointer))
        conn.send(virtual_pointer, 1, ("u", 1), ("u", 232), ("u", 182), ("u", 640), ("u", 480))
        conn.send(virtual_pointer, 4)

        def super_click():
            for state in (1, 0):
                conn.send(virtual_pointer, 2, ("u", 2), ("u", BTN_LEFT), ("u", state))
                conn.send(virtual_pointer, 4)
            conn.roundtrip()
            time.sleep(0.2)
            conn.roundtrip()
            return [e.args("uuuu")[3] for e in conn.take(pointer, 3)]

        conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 4 and e.args("uu")[1] & MOD4)
        check(True, "the window sees Super held")
        states = super_click()
        check(states == [1, 0], f"with shortcuts inhibited, Super + click reaches the window ({states})")

        other = Toplevel(conn, "no inhibitor")
        other.commit()
        other.map(400, 300)
        conn.dispatch_until(lambda e: e.obj == inhibitor and e.opcode == 1)
        check(True, "when another window takes focus the inhibitor turns inactive")
        states = super_click()
        check(states == [], f"and Super + click on that window is kiln's move again ({states})")
        close_keymaps(conn, keyboard)


def array_u32(data):
    return [int.from_bytes(data[i:i + 4], sys.byteorder) for i in range(0, len(data), 4)]


def main():
    need("wayland-info")
    need("wl-copy")
    need("wtype")
    need("wev")
    with Kiln() as kiln:
        wait_listening(kiln)
        globals_listed(kiln)
        seat_capabilities(kiln)
        clipboard(kiln)
        decorations(kiln)
    # Each window test on a fresh kiln, so the window is the only one and has focus.
    for test in (primary_selection_from_focused_client, virtual_keyboard, virtual_pointer, idle, activation,
                 foreign_toplevels, relative_pointer, shortcuts_inhibit):
        with Kiln() as kiln:
            wait_listening(kiln)
            test(kiln)
            check(kiln.alive(), f"kiln is still running after {test.__name__}")
            status, _ = kiln.stop()
            check(status == 0, f"kiln exits 0 on SIGTERM (got {status})")


run_test(main)
