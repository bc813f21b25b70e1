#!/usr/bin/env python3
"""xdg-shell clients that misbehave, on headless kiln (640x480): impossible positioners and bad resize edges are
protocol errors, moves, resizes and grabs with forged serials are ignored, and a client that stops answering pings
is marked unresponsive while another is served."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check  # noqa: E402
from wayland_wire import Connection, ProtocolError  # noqa: E402
from xdg_shell_client import (BOTTOM_RIGHT, EDGE_BOTTOM_RIGHT, TOP_LEFT, make_positioner, Popup, run_cases,
                              wait_box_sized, Window)  # noqa: E402


def expect_error(kiln, what, body, code):
    try:
        with Connection(kiln.client_env) as conn:
            body(conn)
            conn.roundtrip()
    except ProtocolError as error:
        check(f": {code} " in str(error), f"{what}: {error}")
        return
    raise AssertionError(f"{what}: no protocol error")


def bad_input(kiln):
    def zero_size(conn):
        wm_base = conn.bind("xdg_wm_base", 2)
        positioner = conn.create("xdg_positioner", wm_base, 1)
        conn.send(positioner, 1, ("i", 0), ("i", 0))

    expect_error(kiln, "a positioner of size 0x0 is xdg_positioner.invalid_input", zero_size, 0)

    def incomplete(conn):
        window = Window(conn, "incomplete positioner")
        window.show(100, 100, 0xff101020)
        positioner = conn.create("xdg_positioner", window.wm_base, 1)
        conn.send(positioner, 2, ("i", 0), ("i", 0), ("i", 10), ("i", 10))  # an anchor rect but no size
        Popup(conn, window.wm_base, window.xdg_surface, positioner)

    expect_error(kiln, "a popup from a positioner with no size is xdg_wm_base.invalid_positioner", incomplete, 5)

    def bad_edge(conn):
        seat = conn.bind("wl_seat", 5)
        window = Window(conn, "bad edge")
        window.show(100, 100, 0xff102010)
        conn.send(window.toplevel, 6, ("o", seat), ("u", 1), ("u", 3))  # top | bottom is no edge

    expect_error(kiln, "resize from edges 3 is xdg_toplevel.invalid_resize_edge", bad_edge, 0)

    with Connection(kiln.client_env) as conn:
        seat = conn.bind("wl_seat", 5)
        window = Window(conn, "forged")
        window.show(100, 100, 0xff201010)
        for serial in (0, 1, 0xffffffff):
            conn.send(window.toplevel, 5, ("o", seat), ("u", serial))
            conn.send(window.toplevel, 6, ("o", seat), ("u", serial), ("u", EDGE_BOTTOM_RIGHT))
        conn.send(window.toplevel, 6, ("o", seat), ("u", 1), ("u", 0))  # no edge: nothing to do
        conn.roundtrip()
        check(True, "moves and resizes with forged serials are ignored without an error")
        # A refused grab whose popup is gone before kiln dismisses it, in the same batch of requests.
        for destroy_surface in (False, True):
            positioner = make_positioner(conn, window.wm_base, (20, 20), (0, 0, 1, 1), TOP_LEFT, BOTTOM_RIGHT, 0)
            popup = Popup(conn, window.wm_base, window.xdg_surface, positioner, grab=(seat, 99))
            conn.send(popup.popup, 0)
            if destroy_surface:
                conn.send(popup.xdg_surface, 0)
            conn.roundtrip()
        check(True, "a refused grab's popup destroyed at once leaves nothing behind")
    check(kiln.alive(), "kiln is still running after the bad input")


# --- pings --------------------------------------------------------------------------------------------------------

def unresponsive_client(kiln):
    with Connection(kiln.client_env) as hung:
        window = Window(hung, "hung")
        window.show(200, 150, 0xff704030)
        hung.dispatch_until(lambda e: e.obj == window.wm_base and e.opcode == 0)
        check(True, "a window given focus is pinged")
        # It never answers; another client is served meanwhile.
        with Connection(kiln.client_env) as other:
            responsive = Window(other, "responsive")
            responsive.show(200, 150, 0xff307040)
            other.dispatch_until(lambda e: e.obj == responsive.wm_base and e.opcode == 0)
            other.answer_pings(responsive.wm_base)
            wait_box_sized(kiln, 0xff307040, 200, 150, "a second client maps while the first ignores its ping")
            kiln.wait_for(lambda: "window 'hung' is not responding" in kiln.logs(),
                          "kiln to mark the hung window unresponsive", timeout=30, interval=0.2)
            check("'responsive' is not responding" not in kiln.logs(), "the hung window is marked, the other not")


if __name__ == "__main__":
    run_cases([bad_input, unresponsive_client])
