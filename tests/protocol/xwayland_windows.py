#!/usr/bin/env python3
"""Managed X11 windows are toplevels like xdg ones: Alt+Tab moves focus between an X11 window and an xdg window,
Super+drag moves an X11 window and Super+right-drag resizes it, Super+F and Super+Up fill the output and the usable
area, Super+Q asks it to close with WM_DELETE_WINDOW (a window that does not take it is left open, never killed),
and the taskbar protocol lists it with its title and class and can activate and close it. Override-redirect windows
are in neither the focus cycle nor the taskbar."""
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, rgb, run_test, skip  # noqa: E402
from virtual_input import ALT, BTN_RIGHT, SUPER, VirtualKeyboard, VirtualPointer, array_u32  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402
from x11_window import X11_CLIENT, XWindow, wait_active, x_display  # noqa: E402

SIZE = (640, 480)
RED, GREEN, TEAL = rgb("ff0000"), rgb("00ff00"), rgb("336699")
KEYBOARD_ENTER, KEYBOARD_LEAVE = 1, 2
HANDLE_TITLE, HANDLE_APP_ID, HANDLE_STATE, HANDLE_DONE, HANDLE_CLOSED = 0, 1, 4, 5, 6
ACTIVATED = 2


class Desktop:
    """One Wayland client holding an xdg window, a wl_keyboard (for its focus and the keymap), a virtual keyboard
    and a virtual pointer."""

    def __init__(self, kiln):
        self.kiln = kiln
        self.conn = Connection(kiln.client_env)
        self.seat = self.conn.bind("wl_seat", 5)
        self.keyboard = self.conn.create("wl_keyboard", self.seat, 1)
        self.window = Toplevel(self.conn, "xdg window")
        self.window.commit()
        self.window.map(200, 150, color=0xff336699)
        self.wait_keyboard(KEYBOARD_ENTER)
        keymap = [e for e in self.conn.events if e.obj == self.keyboard and e.opcode == 0][-1]
        self.keys = VirtualKeyboard(self.conn, self.seat, keymap)
        self.pointer = VirtualPointer(self.conn, SIZE)

    def wait_keyboard(self, opcode):
        """Waits for the xdg window's wl_keyboard.enter or leave."""
        event = self.conn.dispatch_until(lambda e: e.obj == self.keyboard and e.opcode == opcode and
                                         e.args("uo")[1] == self.window.surface)
        self.conn.events.remove(event)

    def super_drag(self, start, end, button=None):
        self.keys.hold(SUPER)
        if button:
            self.pointer.drag(start, end, button)
        else:
            self.pointer.drag(start, end)
        self.keys.hold(0)


def focus_cycle(kiln, display, desk):
    red = XWindow(kiln, display, "ff0000", 300, 200, 120, 80)
    wait_active(red, red.id, "a managed X11 window takes focus as it maps")
    desk.wait_keyboard(KEYBOARD_LEAVE)
    menu = XWindow(kiln, display, "00ff00", 20, 400, 40, 30, "override-redirect")
    # About 1 run in 16-25 this window never showed (every process idle after 30 s): its buffer came before wlroots
    # paired it with its X window, and wlroots 0.15 maps only on a later commit. XwaylandLateMap maps it (100 of 100).
    kiln.wait_for(lambda: kiln.screenshot().count(GREEN) > 0, "the override-redirect window to show", timeout=30)

    desk.keys.press(ALT, "Tab")
    desk.wait_keyboard(KEYBOARD_ENTER)
    check(True, "Alt+Tab from the X11 window gives the xdg window keyboard focus")
    wait_active(red, 0, "and the X11 window is no longer X's active window")
    desk.keys.press(ALT, "Tab")
    wait_active(red, red.id, "Alt+Tab again focuses the X11 window (the override-redirect one is skipped)")
    desk.wait_keyboard(KEYBOARD_LEAVE)
    check(True, "and the xdg window loses the keyboard")
    desk.keys.press(SUPER, "Tab")
    desk.wait_keyboard(KEYBOARD_ENTER)
    desk.keys.press(SUPER, "Tab")
    wait_active(red, red.id, "Super+Tab cycles through both the same way")
    menu.close()
    return red


def move_and_resize(kiln, desk, red):
    x, y, w, h = red.geometry()
    desk.super_drag((x + 20, y + 20), (x + 120, y + 70))
    kiln.wait_for(lambda: red.geometry() == (x + 100, y + 50, w, h), "X to see the window moved")
    check(True, f"Super+drag moves the X11 window by (100, 50): X has it at {red.geometry()}")
    kiln.wait_for(lambda: kiln.screenshot().bounding_box(RED) == (x + 100, y + 50, x + 100 + w, y + 50 + h),
                  "the moved window to be drawn there")
    check(True, "and it is drawn where X has it")
    x, y = x + 100, y + 50

    # Grabbed near its bottom-right corner: that corner follows the pointer, the top-left one stays.
    desk.super_drag((x + w - 10, y + h - 10), (x + w + 30, y + h + 20), BTN_RIGHT)
    kiln.wait_for(lambda: red.geometry() == (x, y, w + 40, h + 30), "X to see the window resized")
    check(True, f"Super+right-drag resizes it from the corner nearest the pointer ({red.geometry()})")
    kiln.wait_for(lambda: kiln.screenshot().bounding_box(RED) == (x, y, x + w + 40, y + h + 30),
                  "the resized window to be drawn")
    check(True, "and it is drawn at its new size")
    w, h = w + 40, h + 30
    # Near its top-left corner: that corner moves, the bottom-right one stays.
    desk.super_drag((x + 5, y + 5), (x + 25, y + 15), BTN_RIGHT)
    kiln.wait_for(lambda: red.geometry() == (x + 20, y + 10, w - 20, h - 10), "the top-left resize")
    check(True, f"from the top-left corner the opposite corner stays put ({red.geometry()})")
    red.command(f"configure {x} {y} {w} {h}", "configured")
    kiln.wait_for(lambda: red.geometry() == (x, y, w, h), "the window's own configure request")
    return x, y, w, h


def states(kiln, desk, red, box):
    desk.keys.press(SUPER, "f")
    kiln.wait_for(lambda: red.geometry() == (0, 0, *SIZE), "the X11 window to fill the output")
    check(True, "Super+F makes the focused X11 window fullscreen on its output")
    desk.keys.press(SUPER, "f")
    kiln.wait_for(lambda: red.geometry() == box, "the X11 window to go back")
    check(True, f"Super+F again puts it back where it was ({red.geometry()})")
    desk.keys.press(SUPER, "Up")
    # kiln decorates the window: its title bar (24) and borders (4) stay inside the usable area too.
    maximized = (4, 24, SIZE[0] - 8, SIZE[1] - 28)
    kiln.wait_for(lambda: red.geometry() == maximized, "the X11 window to be maximized")
    check(True, f"Super+Up maximizes it to the output's usable area, less kiln's decoration ({maximized})")
    desk.keys.press(SUPER, "Up")
    kiln.wait_for(lambda: red.geometry() == box, "the X11 window to be unmaximized")
    check(True, "Super+Up again puts it back")


def taskbar(kiln, display, desk, red):
    with Connection(kiln.client_env) as conn:
        manager = conn.bind("zwlr_foreign_toplevel_manager_v1", 3)
        conn.roundtrip()
        handles = {}  # title -> handle
        for event in conn.take(manager, 0):
            handle = event.args("n")[0]
            conn.interfaces[handle] = "zwlr_foreign_toplevel_handle_v1"
            conn.dispatch_until(lambda e: e.obj == handle and e.opcode == HANDLE_DONE)
            titles = [e.args("s")[0] for e in conn.events if e.obj == handle and e.opcode == HANDLE_TITLE]
            handles[titles[-1] if titles else None] = handle

        def last(handle, opcode, signature):
            events = [e for e in conn.events if e.obj == handle and e.opcode == opcode]
            return events[-1].args(signature)[0] if events else None

        def activated(handle):
            state = last(handle, HANDLE_STATE, "a")
            return state is not None and ACTIVATED in array_u32(state)

        check(sorted(handles, key=str) == ["x11 window ff0000", "xdg window"],
              f"the taskbar lists the xdg window and the X11 window by title, no override-redirect one "
              f"({sorted(handles, key=str)})")
        x11 = handles["x11 window ff0000"]
        check(last(x11, HANDLE_APP_ID, "s") == "kiln-x11-client",
              f"the X11 window's app_id is its WM_CLASS ({last(x11, HANDLE_APP_ID, 's')})")
        check(activated(x11) and not activated(handles["xdg window"]), "and it is the activated one")

        conn.send(handles["xdg window"], 4, ("o", conn.bind("wl_seat", 5)))  # activate
        desk.wait_keyboard(KEYBOARD_ENTER)
        wait_active(red, 0, "activating the xdg window's handle takes focus from the X11 window")
        conn.send(x11, 4, ("o", conn.bind("wl_seat", 5)))
        wait_active(red, red.id, "activating the X11 window's handle focuses it")
        conn.dispatch_until(lambda e: e.obj == x11 and e.opcode == HANDLE_DONE and activated(x11))
        check(True, "and its handle says it is activated")

        conn.send(x11, 5)  # close
        red.read_line("deleted")
        check(red.proc.wait(10) == 0, "closing the X11 window's handle sends WM_DELETE_WINDOW: the client exits 0")
        conn.dispatch_until(lambda e: e.obj == x11 and e.opcode == HANDLE_CLOSED)
        check(True, "and when the window goes its handle is closed")


def close_politely(kiln, display, desk):
    blue = XWindow(kiln, display, "0000ff", 100, 100, 80, 60)
    wait_active(blue, blue.id, "another X11 window has focus")
    desk.keys.press(SUPER, "q")
    blue.read_line("deleted")
    check(blue.proc.wait(10) == 0, "Super+Q sends the focused X11 window WM_DELETE_WINDOW, and its client exits "
          "by itself")
    desk.wait_keyboard(KEYBOARD_ENTER)
    check(True, "focus goes back to the window focused before it (the xdg window)")

    stubborn = XWindow(kiln, display, "ffff00", 100, 100, 80, 60, "no-delete")
    wait_active(stubborn, stubborn.id, "an X11 window without WM_DELETE_WINDOW has focus")
    desk.keys.press(SUPER, "q")
    kiln.wait_for(lambda: "does not take WM_DELETE_WINDOW" in kiln.logs(), "kiln to decline closing it")
    check(stubborn.geometry() == (100, 100, 80, 60) and stubborn.proc.poll() is None,
          "Super+Q leaves a window without WM_DELETE_WINDOW open: its client is not killed")
    stubborn.close()

    if shutil.which("xterm"):
        xterm = kiln.spawn(["xterm", "-geometry", "20x5+40+40", "-bg", "#00ff00", "-fg", "#00ff00"],
                           env={"DISPLAY": display})
        kiln.wait_for(lambda: kiln.screenshot().count(GREEN, step=2) > 500, "xterm's green window")
        desk.wait_keyboard(KEYBOARD_LEAVE)
        desk.keys.press(SUPER, "q")
        status = xterm.wait(10)
        check(True, f"Super+Q closes xterm the way its window manager asks (it exited, status {status})")
    else:
        print("xterm is not installed: its Super+Q check is skipped")


def main():
    need("Xwayland")
    need("grim")
    if not Path(X11_CLIENT).exists():
        skip(f"{X11_CLIENT} is not built")
    with Kiln(size=f"{SIZE[0]}x{SIZE[1]}") as kiln:
        display = x_display(kiln)
        desk = Desktop(kiln)
        kiln.wait_for(lambda: kiln.screenshot().count(TEAL) > 0, "the xdg window to show")
        red = focus_cycle(kiln, display, desk)
        box = move_and_resize(kiln, desk, red)
        states(kiln, desk, red, box)
        taskbar(kiln, display, desk, red)
        close_politely(kiln, display, desk)
        check(kiln.alive(), "kiln is still running")
        desk.conn.close()


run_test(main)
