#!/usr/bin/env python3
"""ext-session-lock-v1 on headless kiln (640x480): while locked nothing but the lock surfaces is shown or gets
input, a second locker is refused, a locker that dies leaves the session locked (and another may take over), and
unlock_and_destroy brings the session back. Plus the protocol's errors."""
import shutil
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel, expect_protocol_error, shm_buffer  # noqa: E402

RED, GREEN, BLUE = (255, 0, 0), (0, 255, 0), (0, 0, 255)
BTN_LEFT = 0x110
LOCKED, FINISHED = 0, 1


def argb(color):
    r, g, b = color
    return 0xff000000 | r << 16 | g << 8 | b


class Locker:
    """A session-lock client on the wire."""

    def __init__(self, kiln):
        self.conn = Connection(kiln.client_env)
        self.manager = self.conn.bind("ext_session_lock_manager_v1", 1)
        self.compositor = self.conn.bind("wl_compositor", 4)
        self.output = self.conn.bind("wl_output", 2)
        self.lock = self.conn.create("ext_session_lock_v1", self.manager, 1)

    def answer(self):
        """locked (0) or finished (1), whichever comes."""
        event = self.conn.dispatch_until(lambda e: e.obj == self.lock)
        self.conn.events.remove(event)
        return event.opcode

    def lock_surface(self, color, size=None):
        surface = self.conn.create("wl_surface", self.compositor, 0)
        lock_surface = self.conn.create("ext_session_lock_surface_v1", self.lock, 1, ("o", surface),
                                        ("o", self.output))
        configure = self.conn.dispatch_until(lambda e: e.obj == lock_surface and e.opcode == 0)
        self.conn.events.remove(configure)
        serial, width, height = configure.args("uuu")
        self.conn.send(lock_surface, 1, ("u", serial))  # ack_configure
        width, height = size or (width, height)
        buffer = shm_buffer(self.conn, width, height, argb(color))
        self.conn.send(surface, 1, ("o", buffer), ("i", 0), ("i", 0))
        self.conn.send(surface, 2, ("i", 0), ("i", 0), ("i", width), ("i", height))
        self.conn.send(surface, 6)
        return surface, tuple(configure.args("uuu")[1:])

    def unlock(self):
        self.conn.send(self.lock, 2)  # unlock_and_destroy
        self.conn.roundtrip()

    def close(self):
        self.conn.close()


def only(kiln, colors, what):
    """Waits until the screen holds nothing but `colors` (sampled every 8 px)."""
    kiln.wait_for(lambda: kiln.screenshot().distinct_colors(step=8) <= set(colors), what)


def lock_shown(kiln, what):
    """Waits until the lock surface's green covers the screen but for kiln's cursor, and no client's pixels show."""
    def shown():
        shot = kiln.screenshot()
        return shot.count(GREEN, step=8) >= 80 * 60 - 20 and shot.count(RED) == 0 and shot.count(BLUE) == 0
    kiln.wait_for(shown, what)


def none_of(kiln, colors, what):
    """Waits until no pixel of `colors` is on screen (kiln's cursor may be: it is no client's)."""
    kiln.wait_for(lambda: all(kiln.screenshot().count(c) == 0 for c in colors), what)


def input_events(conn, pointer, keyboard):
    """Pointer enter, motion and button, keyboard enter and key events queued so far."""
    return [e for e in conn.events
            if (e.obj == pointer and e.opcode in (0, 2, 3)) or (e.obj == keyboard and e.opcode in (1, 3))]


def expect_error(conn, code, what):
    error = expect_protocol_error(conn)
    check(f": {code} " in str(error), f"{what} ({error})")


def lock_cycle(kiln):
    need("swaybg")
    kiln.spawn(["swaybg", "-c", "#ff0000"])
    with Connection(kiln.client_env) as app:
        seat = app.bind("wl_seat", 5)
        keyboard = app.create("wl_keyboard", seat, 1)
        pointer = app.create("wl_pointer", seat, 0)
        window = Toplevel(app, "behind the lock")
        window.commit()
        window.map(300, 200, argb(BLUE))
        app.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 1)
        only(kiln, [RED, BLUE], "the background and the window")
        check(True, "before the lock: swaybg's red and the window's blue")

        locker = Locker(kiln)
        check(locker.answer() == LOCKED, "the first lock request is answered locked")
        app.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 2)
        check(True, "the window lost the keyboard")
        shot = kiln.screenshot()
        check(shot.count(RED) == 0 and shot.count(BLUE) == 0,
              f"locked with no lock surface yet: no client's pixels on screen ({shot.distinct_colors(step=8)})")
        surface, size = locker.lock_surface(GREEN)
        check(size == (640, 480), f"the lock surface is configured to the output's size ({size})")
        lock_shown(kiln, "the lock surface alone")
        check(True, "the lock surface covers the output; nothing else shows")

        # Input: the pointer over where the window is reaches the lock surface, never the window.
        seat_l = locker.conn.bind("wl_seat", 5)
        pointer_l = locker.conn.create("wl_pointer", seat_l, 0)
        app.roundtrip()
        app.take(pointer)
        app.take(keyboard)
        manager = app.bind("zwlr_virtual_pointer_manager_v1", 1)
        virtual = app.new_id("zwlr_virtual_pointer_v1")
        app.send(manager, 0, ("o", seat), ("n", virtual))
        app.send(virtual, 1, ("u", 1), ("u", 150), ("u", 150), ("u", 640), ("u", 480))
        app.send(virtual, 4)
        app.send(virtual, 2, ("u", 2), ("u", BTN_LEFT), ("u", 1))
        app.send(virtual, 4)
        enter = locker.conn.dispatch_until(lambda e: e.obj == pointer_l and e.opcode == 0)
        check(enter.args("uo")[1] == surface, "the pointer enters the lock surface")
        app.roundtrip()
        check(input_events(app, pointer, keyboard) == [], "the window gets no pointer or keyboard event while locked")

        second = Locker(kiln)
        check(second.answer() == FINISHED, "a second lock while a live locker holds the session: finished")
        second.conn.send(second.lock, 2)  # unlock_and_destroy, never locked
        expect_error(second.conn, 1, "its unlock_and_destroy is invalid_unlock")
        second.close()

        locker.close()  # the locker dies
        kiln.wait_for(lambda: kiln.screenshot().count(GREEN) == 0, "the dead locker's surface to go")
        none_of(kiln, [RED, BLUE, GREEN], "no client's pixels")
        check(True, "the locker died: still locked, its surface gone, no client's pixels on screen")
        app.send(virtual, 0, ("u", 3), ("f", 5.0), ("f", 5.0))
        app.send(virtual, 4)
        app.roundtrip()
        check(input_events(app, pointer, keyboard) == [], "and the window still gets no input")

        rescue = Locker(kiln)
        check(rescue.answer() == LOCKED, "a new locker may take over the abandoned lock (locked at once)")
        rescue.lock_surface(GREEN)
        lock_shown(kiln, "the new lock surface")
        rescue.unlock()
        kiln.wait_for(lambda: (lambda shot: shot.count(RED) > 0 and shot.count(BLUE) > 0 and shot.count(GREEN) == 0)(
            kiln.screenshot()), "the session back")
        check(True, "unlock_and_destroy: swaybg and the window are back")
        app.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 1)
        check(True, "and the window has the keyboard again")
        rescue.close()


def swaylock(kiln):
    if shutil.which("swaylock") is None:
        print("swaylock is not installed: its case is skipped")
        return
    with Connection(kiln.client_env) as app:
        window = Toplevel(app, "behind swaylock")
        window.commit()
        window.map(300, 200, argb(BLUE))
        kiln.wait_for(lambda: kiln.screenshot().count(BLUE) > 0, "the window")
        locker = kiln.spawn(["swaylock", "--color", "00ff00"])
        lock_shown(kiln, "swaylock's green")
        check(True, "swaylock locks the session: its green covers the output, the window is hidden")
        locker.send_signal(signal.SIGKILL)
        locker.wait()
        none_of(kiln, [BLUE, GREEN], "no client's pixels after swaylock died")
        check(True, "swaylock killed: the session stays locked, no client's pixels")
        rescue = Locker(kiln)
        check(rescue.answer() == LOCKED, "another locker takes over")
        rescue.unlock()
        kiln.wait_for(lambda: kiln.screenshot().count(BLUE) > 0, "the window back")
        check(True, "and unlocks: the window is back")
        rescue.close()


def errors(kiln):
    locker = Locker(kiln)
    check(locker.answer() == LOCKED, "locked")
    locker.conn.send(locker.lock, 0)  # destroy while locked
    expect_error(locker.conn, 0, "destroy after locked is invalid_destroy")
    locker.close()

    locker = Locker(kiln)
    check(locker.answer() == LOCKED, "a new locker takes over")
    locker.lock_surface(GREEN)
    surface = locker.conn.create("wl_surface", locker.compositor, 0)
    locker.conn.create("ext_session_lock_surface_v1", locker.lock, 1, ("o", surface), ("o", locker.output))
    expect_error(locker.conn, 3, "a second lock surface on the same output is duplicate_output")
    locker.close()

    locker = Locker(kiln)
    locker.answer()
    locker.lock_surface(GREEN, size=(100, 100))
    expect_error(locker.conn, 2, "a buffer of another size than configured is dimensions_mismatch")
    locker.close()

    locker = Locker(kiln)
    locker.answer()
    surface = locker.conn.create("wl_surface", locker.compositor, 0)
    lock_surface = locker.conn.create("ext_session_lock_surface_v1", locker.lock, 1, ("o", surface),
                                      ("o", locker.output))
    locker.conn.send(surface, 6)
    expect_error(locker.conn, 0, "a commit before the first ack is commit_before_first_ack")
    locker.close()

    locker = Locker(kiln)
    locker.answer()
    surface, _ = locker.lock_surface(GREEN)
    locker.conn.send(surface, 1, ("o", 0), ("i", 0), ("i", 0))
    locker.conn.send(surface, 6)
    expect_error(locker.conn, 1, "a null buffer is null_buffer")
    locker.close()

    with Connection(kiln.client_env) as conn:
        check(conn.globals.get("wl_compositor") is not None and kiln.alive(), "kiln is unaffected")
    none_of(kiln, [GREEN], "still locked")
    check(True, "after all those errors the session is still locked")


def keys_while_locked(kiln):
    MOD4, KEY_Q = 1 << 6, 16
    with Connection(kiln.client_env) as app:
        seat = app.bind("wl_seat", 5)
        window = Toplevel(app, "Super+Q must not close me while locked")
        window.commit()
        window.map(200, 150, argb(BLUE))
        locker = Locker(kiln)
        check(locker.answer() == LOCKED, "locked")
        seat_l = locker.conn.bind("wl_seat", 5)
        keyboard_l = locker.conn.create("wl_keyboard", seat_l, 1)
        surface, _ = locker.lock_surface(GREEN)
        enter = locker.conn.dispatch_until(lambda e: e.obj == keyboard_l and e.opcode == 1)
        check(enter.args("uo")[1] == surface, "the lock surface has the keyboard")
        keymap = [e for e in locker.conn.events if e.obj == keyboard_l and e.opcode == 0][-1]
        keyboards = app.bind("zwp_virtual_keyboard_manager_v1", 1)
        virtual = app.new_id("zwp_virtual_keyboard_v1")
        app.send(keyboards, 0, ("o", seat), ("n", virtual))
        app.send(virtual, 0, ("u", 1), ("u", keymap.args("uu")[1]), fds=[keymap.fds[0]])
        app.send(virtual, 2, ("u", MOD4), ("u", 0), ("u", 0), ("u", 0))  # Super held
        app.send(virtual, 1, ("u", 1), ("u", KEY_Q), ("u", 1))
        app.send(virtual, 1, ("u", 2), ("u", KEY_Q), ("u", 0))
        app.roundtrip()
        key = locker.conn.dispatch_until(lambda e: e.obj == keyboard_l and e.opcode == 3)
        check(key.args("uuuu")[2] == KEY_Q, "Super+Q while locked reaches the lock surface")
        app.roundtrip()
        check([e for e in app.events if e.obj == window.toplevel and e.opcode == 1] == [],
              "and is not kiln's close binding: the hidden window gets no close")
        locker.unlock()
        locker.close()


def resized_while_locked(kiln):
    if shutil.which("wlr-randr") is None:
        print("wlr-randr is not installed: its case is skipped")
        return
    locker = Locker(kiln)
    check(locker.answer() == LOCKED, "locked")
    locker.lock_surface(GREEN)
    lock_surface = max(obj for obj, name in locker.conn.interfaces.items() if name == "ext_session_lock_surface_v1")
    result = kiln.run(["wlr-randr", "--output", "HEADLESS-1", "--custom-mode", "800x600"])
    check(result.returncode == 0, "the output changes to 800x600 while locked")
    configure = locker.conn.dispatch_until(lambda e: e.obj == lock_surface and e.opcode == 0)
    check(tuple(configure.args("uuu")[1:]) == (800, 600), "the lock surface is configured to the new size")
    serial = configure.args("u")[0]
    locker.conn.send(lock_surface, 1, ("u", serial))
    surface = [obj for obj, name in locker.conn.interfaces.items() if name == "wl_surface"][-1]
    buffer = shm_buffer(locker.conn, 800, 600, argb(GREEN))
    locker.conn.send(surface, 1, ("o", buffer), ("i", 0), ("i", 0))
    locker.conn.send(surface, 2, ("i", 0), ("i", 0), ("i", 800), ("i", 600))
    locker.conn.send(surface, 6)
    locker.conn.roundtrip()
    kiln.wait_for(lambda: (lambda s: s.width == 800 and s.count(GREEN, step=10) >= 80 * 60 - 20)(kiln.screenshot()),
                  "the lock surface over the whole 800x600 output")
    check(True, "and covers the whole resized output")
    locker.unlock()
    locker.close()


def restricted():
    with Kiln("--restrict", "session-lock") as kiln:
        with Connection(kiln.client_env) as conn:
            check("ext_session_lock_manager_v1" not in conn.globals,
                  "--restrict session-lock hides the lock manager from a client kiln did not start")
            check("wl_compositor" in conn.globals, "and nothing else")


def listening(kiln):
    """Kiln's socket file exists a moment before kiln listens: clients other than the wire one (swaybg, grim)
    start only once it does."""
    with Connection(kiln.client_env) as conn:
        conn.roundtrip()


def main():
    need("grim")
    for test in (lock_cycle, swaylock, keys_while_locked, resized_while_locked, errors):
        with Kiln() as kiln:
            listening(kiln)
            test(kiln)
    restricted()


if __name__ == "__main__":
    run_test(main)
