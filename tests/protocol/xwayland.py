#!/usr/bin/env python3
"""Xwayland on headless kiln: started on the first X11 connection (or at start-up, or never), DISPLAY for startup
commands, X11 windows drawn where X places them, configure requests, stacking and focus, override-redirect windows,
fullscreen, a map/unmap flood beside a Wayland client that keeps drawing, and the clipboard both ways."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, rgb, run_test, skip  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402
from wayland_wire import Connection, Toplevel, shm_buffer  # noqa: E402
from x11_window import X11_CLIENT, XWindow, wait_active, x_display  # noqa: E402

RED, BLUE, GREEN, YELLOW = rgb("ff0000"), rgb("0000ff"), rgb("00ff00"), rgb("ffff00")
SIZE = (640, 480)


def xwayland_running(display):
    """Whether an Xwayland serves `display` (wlroots starts it as `Xwayland :N -rootless ...`)."""
    result = subprocess.run(["pgrep", "-f", f"^Xwayland {display} "], stdout=subprocess.DEVNULL)
    return result.returncode == 0


def wait_box(kiln, color, box, what):
    def matches():
        shot = kiln.screenshot()
        return shot.bounding_box(color) == box
    kiln.wait_for(matches, what)
    check(True, what)


def wait_pixel(kiln, x, y, color, what):
    kiln.wait_for(lambda: kiln.screenshot().at(x, y) == color, what)
    check(True, what)


def click(conn, x, y):
    """A left click at layout (x, y) through a virtual pointer."""
    pointer = VirtualPointer(conn, SIZE)
    pointer.move(x, y)
    pointer.button(True)
    pointer.button(False)
    pointer.destroy()


def startup_display(*args):
    """What a startup command sees as DISPLAY under kiln with `args` ('unset' when it is not set)."""
    out_dir = tempfile.mkdtemp(prefix="kiln-xwayland-")
    try:
        out = Path(out_dir) / "display"
        with Kiln(*args, "-s", f"echo \"${{DISPLAY-unset}}\" > {out}.part && mv {out}.part {out}") as kiln:
            kiln.wait_for(out.exists, "the startup command to write its DISPLAY")
            return out.read_text().strip(), kiln.logs()
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


def modes():
    display, log = startup_display()
    check(re.fullmatch(r":\d+", display) is not None, f"by default a startup command gets DISPLAY={display}")
    check(f"DISPLAY={display}" in log, "and kiln's log names it")

    display, log = startup_display("--xwayland=off")
    check(display == "unset", f"with --xwayland=off a startup command has no DISPLAY ({display})")
    check(re.search(r"DISPLAY=:", log) is None, "and kiln announces no X display")

    config_dir = tempfile.mkdtemp(prefix="kiln-xwayland-ini-")
    try:
        ini = Path(config_dir) / "kiln.ini"
        ini.write_text("[xwayland]\nmode=off\n")
        display, _ = startup_display("--config", str(ini))
        check(display == "unset", f"kiln.ini [xwayland] mode=off does the same ({display})")
        display, _ = startup_display("--config", str(ini), "--xwayland=lazy")
        check(display != "unset", f"and --xwayland=lazy wins over the file ({display})")
    finally:
        shutil.rmtree(config_dir, ignore_errors=True)

    with Kiln("--xwayland=eager") as kiln:
        display = x_display(kiln)
        kiln.wait_for(lambda: xwayland_running(display), "Xwayland to start with no X11 client (eager)")
        check(True, f"with --xwayland=eager Xwayland serves {display} before any X11 client connects")
        status, _ = kiln.stop()  # most likely while Xwayland is still starting
        check(status == 0, f"kiln exits cleanly with Xwayland just started (status {status})")
    deadline = time.monotonic() + 10
    while xwayland_running(display) and time.monotonic() < deadline:
        time.sleep(0.1)
    check(not xwayland_running(display), f"and the Xwayland on {display} does not outlive it")


def windows(kiln, display):
    check(not xwayland_running(display), f"lazy: no Xwayland for {display} before an X11 client connects")
    red = XWindow(kiln, display, "ff0000", 50, 60, 200, 100)
    check(xwayland_running(display), "the first X11 connection started Xwayland")
    wait_box(kiln, RED, (50, 60, 250, 160), "an X11 window's pixels show where X placed it (50,60 200x100)")
    wait_active(red, red.id, "a managed X11 window is the active one once mapped")

    red.command("configure 300 200 120 80", "configured")
    wait_box(kiln, RED, (300, 200, 420, 280), "a configure request moves and resizes it (300,200 120x80)")

    blue = XWindow(kiln, display, "0000ff", 250, 150, 100, 100)
    wait_pixel(kiln, 320, 220, BLUE, "a second X11 window maps above the first where they overlap")
    wait_active(red, blue.id, "and takes focus")

    with Connection(kiln.client_env) as conn:
        click(conn, 400, 260)  # a part of the red window the blue one does not cover
        wait_pixel(kiln, 320, 220, RED, "clicking the first window raises it")
        wait_active(red, red.id, "and focuses it")

        menu = XWindow(kiln, display, "00ff00", 330, 210, 40, 30, "override-redirect")
        wait_box(kiln, GREEN, (330, 210, 370, 240), "an override-redirect window (a menu) shows where X put it, on top")
        wait_active(red, red.id, "and does not take focus")
        click(conn, 270, 170)  # the blue window's corner
        wait_active(red, blue.id, "clicking the blue window focuses it")
        shot = kiln.screenshot()
        check(shot.bounding_box(GREEN) == (330, 210, 370, 240), "and the menu stays above the raised window")
        click(conn, 350, 220)  # on the menu
        time.sleep(0.3)
        wait_active(red, blue.id, "clicking the override-redirect window does not focus it")
        menu.close()
        kiln.wait_for(lambda: kiln.screenshot().count(GREEN) == 0, "the menu to go")

    with Connection(kiln.client_env) as conn:
        # A title-bar drag as X clients ask for it: button down on the window, then _NET_WM_MOVERESIZE.
        pointer = VirtualPointer(conn, SIZE)

        def drag_blue_to(x, y, settle):
            pointer.move(260, 160)
            pointer.button(True)
            blue.command("move", "move")
            # The request reaches kiln through Xwayland and kiln's own X connection, after the X client has sent it:
            # a pointer that moved before kiln read it would start the drag where the pointer already is, and the
            # window would not follow. Nothing tells this test when kiln has read it, so it waits, and tries again
            # (button up, the window where it was) with a longer wait if the window did not follow.
            time.sleep(settle)
            pointer.move(x, y)
            target = (x - 10, y - 10, x + 90, y + 90)
            try:
                kiln.wait_for(lambda: kiln.screenshot().bounding_box(BLUE) == target, "the blue window to follow",
                              timeout=5)
                return True
            except AssertionError:
                pointer.button(False)
                wait_box(kiln, BLUE, (250, 150, 350, 250), "a drag that did not start left the window where it was")
                return False
        attempts = 0
        for settle in (0.2, 1.0, 3.0):
            attempts += 1
            if drag_blue_to(410, 310, settle):
                break
        else:
            attempts = None
        check(attempts is not None, f"_NET_WM_MOVERESIZE moves an X11 window with the pointer while the button is "
                                    f"down (attempt {attempts} of 3)")
        pointer.button(False)
        pointer.move(500, 400)
        wait_box(kiln, BLUE, (400, 300, 500, 400), "after the button is released the window stays put")
        geometry = blue.command("geometry", "geometry")
        check(geometry == "geometry 400 300 100 100", f"and X knows where it is ({geometry})")
        pointer.destroy()
        blue.command("configure 250 150 100 100", "configured")
        wait_box(kiln, BLUE, (250, 150, 350, 250), "a configure request puts it back")

    blue.command("fullscreen on", "fullscreen on")
    # The pointer's cursor may be drawn over it: the window's extent and the other window's absence are checked.
    kiln.wait_for(lambda: (lambda shot: shot.bounding_box(BLUE) == (0, 0, *SIZE) and shot.count(RED, step=4) == 0)(
        kiln.screenshot()), "the blue window to cover the output")
    check(True, "_NET_WM_STATE_FULLSCREEN makes an X11 window cover its output")
    blue.command("fullscreen off", "fullscreen off")
    wait_box(kiln, BLUE, (250, 150, 350, 250), "leaving fullscreen puts it back where it was")
    blue.close()
    red.close()
    kiln.wait_for(lambda: kiln.screenshot().count(RED) == 0, "the X11 windows to go")

    if shutil.which("xterm"):
        xterm = kiln.spawn(["xterm", "-geometry", "20x5+40+40", "-bg", "#ffff00", "-fg", "#ffff00"],
                           env={"DISPLAY": display})
        kiln.wait_for(lambda: kiln.screenshot().count(YELLOW, step=2) > 500, "xterm's yellow window")
        box = kiln.screenshot().bounding_box(YELLOW)
        check(box[0] == 40 and box[1] == 40, f"xterm maps through Xwayland where -geometry put it ({box})")
        xterm.terminate()  # the next checks want no other window to take focus
        xterm.wait(10)
        kiln.wait_for(lambda: kiln.screenshot().count(YELLOW, step=2) == 0, "xterm's window to go")
    else:
        print("xterm is not installed: its check is skipped")


def turns_override_redirect(kiln, display):
    red = XWindow(kiln, display, "ff0000", 100, 100, 100, 100)
    wait_active(red, red.id, "a managed window has focus")
    red.command("override-redirect 110 110", "override-redirect")
    wait_box(kiln, RED, (110, 110, 210, 210), "turned override-redirect, it moves itself")
    wait_active(red, 0, "and gives up focus")
    blue = XWindow(kiln, display, "0000ff", 150, 150, 100, 100)
    wait_active(red, blue.id, "a new managed window takes focus")
    check(kiln.screenshot().at(180, 180) == RED, "and stays below the override-redirect one")
    blue.close()
    red.close()
    kiln.wait_for(lambda: kiln.screenshot().count(RED) == 0, "the windows to go")


class Bystander(threading.Thread):
    """A Wayland client that keeps drawing its window, one frame callback after another, and notes when each came."""

    def __init__(self, kiln):
        super().__init__(daemon=True)
        self.conn = Connection(kiln.client_env)
        self.window = Toplevel(self.conn, "beside the flood")
        self.window.commit()
        self.window.map(120, 90, color=0xff336699)
        self.buffer = shm_buffer(self.conn, 120, 90, 0xff336699)
        self.frames = []  # time.monotonic() of each frame callback
        self.error = None
        self.stopping = threading.Event()

    def run(self):
        conn, surface = self.conn, self.window.surface
        try:
            while not self.stopping.is_set():
                callback = conn.create("wl_callback", surface, 3)  # wl_surface.frame
                conn.send(surface, 1, ("o", self.buffer), ("i", 0), ("i", 0))
                conn.send(surface, 2, ("i", 0), ("i", 0), ("i", 120), ("i", 90))  # damage
                conn.send(surface, 6)  # commit
                conn.dispatch_until(lambda e: e.obj == callback, timeout=120)
                self.frames.append(time.monotonic())
                conn.events.clear()  # configures, releases, pings: only the frames count
        except Exception as error:  # noqa: BLE001 (reported by the test's own thread)
            self.error = error

    def frames_between(self, start, end):
        return [t for t in self.frames if start <= t <= end]

    def longest_gap(self, start, end):
        times = [start, *self.frames_between(start, end), end]
        return max(b - a for a, b in zip(times, times[1:]))

    def finish(self):
        self.stopping.set()
        self.join(130)
        self.conn.close()


def flood(kiln, display):
    bystander = Bystander(kiln)
    before = kiln.wait_for(lambda: kiln.screenshot().bounding_box(rgb("336699")), "the Wayland window to show")
    bystander.start()
    kiln.wait_for(lambda: len(bystander.frames) >= 3, "the Wayland client to be drawing")
    start = time.monotonic()
    result = kiln.run([X11_CLIENT, "flood", "400"], timeout=120, env={"DISPLAY": display})
    sent = time.monotonic()
    check(result.returncode == 0 and "flooded 400" in result.stdout,
          f"an X11 client mapped, unmapped, created and destroyed windows 400 times ({result.stdout.strip()})")
    check(kiln.alive(), "kiln survived the flood")
    # kiln's window manager (wlroots 0.15's, which waits for X's replies inside kiln's event loop) may still be
    # working through the flood's X events: the next frames may be slow to come, but they come.
    count = len(bystander.frames)
    kiln.wait_for(lambda: len(bystander.frames) >= count + 10 or bystander.error, "the bystander's next frames",
                  timeout=120)
    settled = bystander.frames[count + 9] if len(bystander.frames) > count + 9 else time.monotonic()
    check(bystander.error is None, f"the drawing client kept its connection ({bystander.error})")
    check(True, f"the drawing client's frames kept coming: {len(bystander.frames_between(start, sent))} while the "
          f"flood was sent ({sent - start:.1f} s), {len(bystander.frames_between(start, settled))} until 10 more came "
          f"after it ({settled - start:.1f} s); longest wait for a frame {bystander.longest_gap(start, settled):.2f} s")
    check(kiln.screenshot().bounding_box(rgb("336699")) == before, "and its window is still drawn")
    bystander.finish()
    # Xwayland and kiln's window manager may still be draining the flood (pinned to one core: 20 s and more after the
    # bystander's frames came back): the new window is waited for as long as the frames were.
    after = XWindow(kiln, display, "ff0000", 400, 300, 60, 40, timeout=120)
    wait_box(kiln, RED, (400, 300, 460, 340), "and X11 windows still map after it")
    after.close()


def clipboard(kiln, display):
    if not shutil.which("xclip"):
        print("xclip is not installed: clipboard checks skipped")
        return
    need("wl-copy")
    x_env = {"DISPLAY": display}
    # wlroots bridges selections only while an X11 window has focus.
    focused = XWindow(kiln, display, "ff0000", 10, 30, 50, 50)
    wait_active(focused, focused.id, "an X11 window has focus")

    def x_paste(selection, expected):
        deadline = time.monotonic() + 10
        last = None
        while time.monotonic() < deadline:
            last = kiln.run(["xclip", "-o", "-selection", selection], env=x_env, timeout=10)
            if last.returncode == 0 and last.stdout == expected:
                return
            time.sleep(0.1)
        raise AssertionError(f"xclip -o -selection {selection} never printed {expected!r} (last: {last.stdout!r})")

    def wl_paste(args, expected):
        deadline = time.monotonic() + 10
        last = None
        while time.monotonic() < deadline:
            last = kiln.run(["wl-paste", "--no-newline", *args], timeout=10)
            if last.returncode == 0 and last.stdout == expected:
                return
            time.sleep(0.1)
        raise AssertionError(f"wl-paste {args} never printed {expected!r} (last: {last.stdout!r})")

    copy = kiln.spawn(["wl-copy", "--foreground", "from wayland"])
    x_paste("clipboard", "from wayland")
    check(True, "wl-copy's text reaches an X11 client's CLIPBOARD (xclip -o)")
    copy.kill()
    copy.wait()
    copy = kiln.spawn(["wl-copy", "--foreground", "--primary", "wayland primary"])
    x_paste("primary", "wayland primary")
    check(True, "and the primary selection reaches X's PRIMARY")
    copy.kill()
    copy.wait()

    for selection, args, text in (("clipboard", [], "from x11"), ("primary", ["--primary"], "x11 primary")):
        owner = kiln.spawn(["xclip", "-quiet", "-i", "-selection", selection], env=x_env, stdin=subprocess.PIPE)
        owner.stdin.write(text.encode())
        owner.stdin.close()
        wl_paste(args, text)
        check(True, f"an X11 client's {selection.upper()} reaches wl-paste {' '.join(args)}")
        owner.kill()
        owner.wait()
    focused.close()


def xwayland_killed(kiln, display):
    """Xwayland dying under a mapped, focused window: kiln goes on, and (Xwayland having run over 5 s, wlroots' rule
    against restart loops) starts a new one for the next X11 client."""
    window = XWindow(kiln, display, "ff0000", 20, 40, 80, 60)
    wait_box(kiln, RED, (20, 40, 100, 100), "an X11 window is up")
    subprocess.run(["pkill", "-KILL", "-f", f"^Xwayland {display} "], check=True)
    # The client waits on its stdin, not on X: the harness ends it.
    kiln.wait_for(lambda: kiln.screenshot().count(RED) == 0, "the dead X server's window to go")
    check(kiln.alive(), "kiln survives Xwayland being killed under a focused window")
    with Connection(kiln.client_env) as conn:
        conn.roundtrip()
    check(True, "Wayland clients still get answers")
    again = XWindow(kiln, display, "0000ff", 30, 50, 50, 40)
    wait_box(kiln, BLUE, (30, 50, 80, 90), f"a new X11 client on {display} gets a new Xwayland and is drawn")
    again.close()


def main():
    need("Xwayland")
    need("grim")
    need("pgrep")
    if not Path(X11_CLIENT).exists():
        skip(f"{X11_CLIENT} is not built")
    modes()
    with Kiln(size=f"{SIZE[0]}x{SIZE[1]}") as kiln:
        display = x_display(kiln)
        windows(kiln, display)
        turns_override_redirect(kiln, display)
        flood(kiln, display)
        clipboard(kiln, display)
        if os.environ.get("KILN_SANITIZED"):
            # wlroots 0.15 leaks the dead server's X window manager when it starts the next Xwayland
            # (xwayland.c, handle_server_ready overwrites xwayland->xwm): LeakSanitizer would report it at exit.
            print("under sanitizers the Xwayland-killed check is left out: wlroots 0.15 leaks the old window manager")
        else:
            xwayland_killed(kiln, display)
        status, _ = kiln.stop()
        check(status == 0, f"kiln exits cleanly with Xwayland running (status {status})")
        check(not Path(f"/tmp/.X11-unix/X{display[1:]}").exists(), f"and removes the X socket of {display}")


run_test(main)
