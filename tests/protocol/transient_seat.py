#!/usr/bin/env python3
"""ext-transient-seat-v1, as a remote desktop (wayvnc) uses it: a client asks for a transient seat and gets
ready(name); a wl_seat global of that registry name appears, named transient-N. A virtual keyboard made on it types
into that seat's own keyboard focus: the window focused when it came, kept there while kiln's seat focuses another
window (whose seat0 keyboard sees none of those keys). Destroying the object takes the keyboard away at once and the
global once no client holds a wl_seat of it; a second seat, never bound, goes when its client disconnects. (security_context.py checks a sandboxed client does not see the
manager.)"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test, stat  # noqa: E402
from virtual_input import VirtualKeyboard  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402

MANAGER = "ext_transient_seat_manager_v1"
KEY_A = 30


def new_seat(conn):
    """Creates a transient seat; returns (its object, the wl_seat global name from ready)."""
    manager = conn.bind(MANAGER, 1)
    seat = conn.create("ext_transient_seat_v1", manager, 0)
    event = conn.dispatch_until(lambda e: e.obj == seat and e.opcode in (0, 1))
    check(event.opcode == 0, "the transient seat is ready, not denied")
    return seat, event.args("u")[0]


def registry_globals(conn):
    """Registry events seen so far: {name: interface} added, and the set of removed names."""
    added = {e.args("usu")[0]: e.args("usu")[1] for e in conn.events if e.obj == conn.registry and e.opcode == 0}
    removed = {e.args("u")[0] for e in conn.events if e.obj == conn.registry and e.opcode == 1}
    return added, removed


def keyboard_events(conn, keyboard, opcode):
    return [e for e in conn.events if e.obj == keyboard and e.opcode == opcode]


def main():
    with Kiln() as kiln, Connection(kiln.client_env) as app, Connection(kiln.client_env) as remote:
        check(MANAGER in remote.globals, f"kiln offers {MANAGER}")
        # The application: two windows, and a wl_keyboard on kiln's seat.
        seat0 = app.bind("wl_seat", 5)
        keyboard0 = app.create("wl_keyboard", seat0, 1)
        first = Toplevel(app, "first")
        first.commit()
        first.map(200, 150, 0xffc02020)
        app.dispatch_until(lambda e: e.obj == keyboard0 and e.opcode == 1 and e.args("uo")[1] == first.surface)
        check(True, "the first window has kiln's seat's keyboard")

        # The remote desktop: a transient seat.
        transient, name = new_seat(remote)
        app.roundtrip()
        added, _ = registry_globals(app)
        check(added.get(name) == "wl_seat", f"a wl_seat global appears with the ready name {name} ({added.get(name)})")
        seat_t = app.new_id("wl_seat")
        app.send(app.registry, 0, ("u", name), ("s", "wl_seat"), ("u", 5), ("n", seat_t))
        seat_name = app.dispatch_until(lambda e: e.obj == seat_t and e.opcode == 1).args("s")[0]
        check(seat_name.startswith("transient-"), f"it is a seat of its own: {seat_name!r}")

        remote_seat = remote.new_id("wl_seat")
        remote.send(remote.registry, 0, ("u", name), ("s", "wl_seat"), ("u", 5), ("n", remote_seat))
        keymap_source = remote.create("wl_keyboard", remote.bind("wl_seat", 5), 1)
        keymap = remote.dispatch_until(lambda e: e.obj == keymap_source and e.opcode == 0)
        keys = VirtualKeyboard(remote, remote_seat, keymap)
        # As a client does, it asks for the seat's keyboard once the seat says it has one.
        app.dispatch_until(lambda e: e.obj == seat_t and e.opcode == 0 and e.args("u")[0] & 2)
        check(True, "the transient seat gains the keyboard capability with the virtual keyboard")
        keyboard_t = app.create("wl_keyboard", seat_t, 1)
        app.dispatch_until(lambda e: e.obj == keyboard_t and e.opcode == 1 and e.args("uo")[1] == first.surface)
        check(True, "the transient seat's keyboard enters the window focused when it came")

        # kiln's seat moves on to a second window; the transient seat's focus stays.
        second = Toplevel(app, "second")
        second.commit()
        second.map(160, 120, 0xff2040c0)
        app.dispatch_until(lambda e: e.obj == keyboard0 and e.opcode == 1 and e.args("uo")[1] == second.surface)
        check(True, "kiln's seat focuses the second window")
        app.events = [e for e in app.events if e.obj not in (keyboard0, keyboard_t) or e.opcode == 0]
        keys.press(0, "a")
        app.dispatch_until(lambda e: e.obj == keyboard_t and e.opcode == 3)
        app.roundtrip()
        typed = [e.args("uuuu")[2] for e in keyboard_events(app, keyboard_t, 3)]
        check(typed == [KEY_A, KEY_A], f"the transient seat's keyboard gets the key (press, release: {typed})")
        check(not keyboard_events(app, keyboard_t, 2), "with no leave: its focus stayed on the first window")
        check(not keyboard_events(app, keyboard0, 3), "kiln's seat's keyboard (on the second window) gets no key")

        # Destroyed by its client: the seat has no keyboard any more, and goes once no client holds a wl_seat of it
        # (wlroots 0.15 would crash on a virtual keyboard made on a wl_seat of a seat destroyed under its client).
        remote.send(transient, 0)  # destroy
        app.dispatch_until(lambda e: e.obj == seat_t and e.opcode == 0 and e.args("u")[0] == 0)
        check(True, "destroying the object takes the seat's keyboard capability away")
        VirtualKeyboard(remote, remote_seat, keymap).press(0, "a")
        app.roundtrip()
        check(kiln.alive() and not keyboard_events(app, keyboard0, 3),
              "a virtual keyboard made on the seat now types nowhere, and kiln runs on")
        remote.send(remote_seat, 3)  # wl_seat.release
        remote.roundtrip()
        app.roundtrip()
        check(name not in registry_globals(app)[1], "the global stays while a client still holds a wl_seat of it")
        app.send(seat_t, 3)  # wl_seat.release
        app.dispatch_until(lambda e: e.obj == app.registry and e.opcode == 1 and e.args("u")[0] == name)
        check(True, f"the wl_seat global {name} is removed once the last client holding it released it")

        # Another one, gone with its client.
        with Connection(kiln.client_env) as brief:
            _, other = new_seat(brief)
            app.roundtrip()
            check(registry_globals(app)[0].get(other) == "wl_seat", f"a second client's transient seat {other}")
        app.dispatch_until(lambda e: e.obj == app.registry and e.opcode == 1 and e.args("u")[0] == other)
        check(True, "its wl_seat global is removed when that client disconnects")
        check(kiln.alive(), "kiln runs on")
        status, stats = kiln.stop()
        check(stat(stats, "transient_seats.made") == 2 and stat(stats, "transient_seats.alive") == 0,
              f"stats: two made, none alive ({stats.get('transient_seats')})")


run_test(main)
