#!/usr/bin/env python3
"""xdg_wm_dialog_v1 on headless kiln: while a modal dialog is shown, a click on its parent window leaves keyboard
focus (wl_keyboard.enter, and so the keys) with the dialog; unset_modal, or destroying the dialog object, ends that;
set_modal while the parent has focus moves it to the dialog; a modal dialog that unmaps gives focus back to the
parent; a second dialog object for one xdg_toplevel is already_used, and a dialog object outlives its window inert."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402
from wayland_wire import Connection, Toplevel, expect_protocol_error  # noqa: E402

DIALOGS = "xdg_wm_dialog_v1"
SIZE = (640, 480)
ENTER = 1  # wl_keyboard.enter


class Client:
    def __init__(self, conn):
        self.conn = conn
        seat = conn.bind("wl_seat", 5)
        self.keyboard = conn.create("wl_keyboard", seat, 1)  # get_keyboard
        self.pointer = VirtualPointer(conn, SIZE)
        self.manager = conn.bind(DIALOGS, 1)

    def entered(self):
        """The surfaces wl_keyboard.enter named since the last call, in order."""
        return [e.args("uo")[1] for e in self.conn.take(self.keyboard, ENTER)]

    def wait_enter(self, surface, what):
        self.conn.dispatch_until(lambda e: e.obj == self.keyboard and e.opcode == ENTER and e.args("uo")[1] == surface)
        self.conn.events = [e for e in self.conn.events if not (e.obj == self.keyboard and e.opcode == ENTER)]
        check(True, what)

    def click(self, x, y):
        self.pointer.move(x, y)
        self.pointer.button(True)
        self.pointer.button(False)  # each ends in a roundtrip: kiln has handled the click


def behaviour(kiln):
    with Connection(kiln.client_env) as conn:
        check(conn.globals.get(DIALOGS, (0, 0))[1] == 1, f"kiln offers {DIALOGS} version 1")
        client = Client(conn)
        parent = Toplevel(conn, "parent")
        parent.commit()
        parent.map(400, 300)  # centred: 120,90 to 520,390
        client.wait_enter(parent.surface, "the parent window has focus once mapped")
        beside_dialog = (140, 110)  # on the parent, outside the dialog centred on it

        dialog = Toplevel(conn, "modal dialog")
        conn.send(dialog.toplevel, 1, ("o", parent.toplevel))  # set_parent
        dialog_obj = conn.create("xdg_dialog_v1", client.manager, 1, ("o", dialog.toplevel))  # get_xdg_dialog
        conn.send(dialog_obj, 1)  # set_modal
        dialog.commit()
        dialog.map(100, 100)
        client.wait_enter(dialog.surface, "the modal dialog takes focus when it maps")

        client.click(*beside_dialog)
        got = client.entered()
        check(got == [], f"a click on the parent leaves focus with its modal dialog (keyboard enters: {got})")

        conn.send(dialog_obj, 2)  # unset_modal
        client.click(*beside_dialog)
        client.wait_enter(parent.surface, "no longer modal: a click on the parent focuses it")

        conn.send(dialog_obj, 1)  # set_modal, while the parent has focus
        client.wait_enter(dialog.surface, "set_modal while the parent has focus moves focus to the dialog")

        conn.send(dialog_obj, 0)  # destroy: its effects go with it
        conn.roundtrip()
        client.click(*beside_dialog)
        client.wait_enter(parent.surface, "the dialog object destroyed: a click on the parent focuses it")

        again = conn.create("xdg_dialog_v1", client.manager, 1, ("o", dialog.toplevel))
        conn.send(again, 1)  # set_modal, on a new dialog object for the same toplevel
        client.wait_enter(dialog.surface, "a new dialog object for the same window is modal again")

        conn.send(dialog.surface, 1, ("o", 0), ("i", 0), ("i", 0))  # attach null: unmapped
        dialog.commit()
        client.wait_enter(parent.surface, "the modal dialog unmapped: focus goes back to the parent")

        conn.send(dialog.toplevel, 0)  # destroy the xdg_toplevel: its dialog object is inert
        conn.send(again, 2)  # unset_modal
        conn.send(again, 1)  # set_modal
        conn.send(again, 0)  # destroy
        conn.roundtrip()
        check(True, "a dialog object whose xdg_toplevel is gone takes its requests without error")
        client.click(*beside_dialog)
        check(client.entered() == [], "the parent keeps focus")


def already_used(kiln):
    with Connection(kiln.client_env) as conn:
        manager = conn.bind(DIALOGS, 1)
        window = Toplevel(conn, "two dialog objects")
        conn.create("xdg_dialog_v1", manager, 1, ("o", window.toplevel))
        conn.roundtrip()
        conn.create("xdg_dialog_v1", manager, 1, ("o", window.toplevel))
        error = expect_protocol_error(conn)
        check(f"on {DIALOGS}@{manager}: 0 " in str(error),
              f"a second xdg_dialog_v1 for one xdg_toplevel is already_used ({error})")


def main():
    with Kiln(size=f"{SIZE[0]}x{SIZE[1]}") as kiln:
        behaviour(kiln)
        already_used(kiln)
        with Connection(kiln.client_env) as conn:
            check(DIALOGS in conn.globals, "kiln serves other clients after one's protocol error")
        check(kiln.alive(), "kiln runs on")


run_test(main)
