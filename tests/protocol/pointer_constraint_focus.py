#!/usr/bin/env python3
"""Pointer constraints follow focus on headless kiln (640x480): a locked or confined pointer is unlocked or
unconfined when another window takes its surface's focus (a window mapped under the pointer, or one that takes the
keyboard elsewhere on screen), and a persistent one is locked or confined again each time its surface gets the
focus back."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402

PERSISTENT = 2
LOCK, CONFINE = 1, 2  # zwp_pointer_constraints_v1 requests
ACTIVATED, DEACTIVATED = 0, 1  # locked/confined and unlocked/unconfined: opcodes 0 and 1 on both interfaces


def follows_focus(kiln, kind, where):
    """`where`: 'under' (the new window covers the pointer) or 'elsewhere' (it takes the keyboard only)."""
    name = {LOCK: "locked", CONFINE: "confined"}[kind]
    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 5)
        pointer = conn.create("wl_pointer", seat, 0)
        window = Toplevel(conn, "constrained")
        window.commit()
        window.map(600, 440)  # centred: 20,20 to 620,460
        virtual = VirtualPointer(conn, (640, 480))
        # New windows are centred: 'under' puts the pointer where they will appear, 'elsewhere' near a corner.
        virtual.move(*((320, 240) if where == "under" else (40, 40)))
        conn.dispatch_until(lambda e: e.obj == pointer and e.opcode == 0)
        manager = conn.bind("zwp_pointer_constraints_v1", 1)
        interface = "zwp_locked_pointer_v1" if kind == LOCK else "zwp_confined_pointer_v1"
        constraint = conn.create(interface, manager, kind, ("o", window.surface), ("o", pointer), ("o", 0),
                                 ("u", PERSISTENT))
        conn.dispatch_until(lambda e: e.obj == constraint and e.opcode == ACTIVATED)
        conn.take(constraint)
        for round_ in (1, 2):
            other = Toplevel(conn, f"focus thief {round_}")
            other.commit()
            other.map(100, 100, color=0xffaa3300)
            try:
                conn.dispatch_until(lambda e: e.obj == constraint and e.opcode == DEACTIVATED)
            except AssertionError:
                raise AssertionError(f"{name}, window {where}, round {round_}: no un{name} when a new window took "
                                     f"the focus")
            check(True, f"{name}, window {where}, round {round_}: un{name} when a new window took the focus")
            conn.send(other.toplevel, 0)
            conn.send(other.xdg_surface, 0)
            conn.send(other.surface, 0)
            try:
                conn.dispatch_until(lambda e: e.obj == constraint and e.opcode == ACTIVATED)
            except AssertionError:
                raise AssertionError(f"{name}, window {where}, round {round_}: the persistent constraint was not "
                                     f"{name} again when its window got the focus back")
            check(True, f"{name}, window {where}, round {round_}: {name} again when the new window went")
            conn.take(constraint)


def main():
    for kind in (LOCK, CONFINE):
        for where in ("under", "elsewhere"):
            with Kiln() as kiln:
                follows_focus(kiln, kind, where)


run_test(main)
