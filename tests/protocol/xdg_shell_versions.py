#!/usr/bin/env python3
"""xdg-shell at the versions kiln offers (xdg_wm_base 7) on headless kiln (640x480): wm_capabilities lists what
kiln does (maximize, fullscreen, minimize; no window menu) as soon as the toplevel is made, before any commit, a window wholly under an opaque one is suspended and its
frame callbacks wait until it shows again (seen by the client), also when the window above turns opaque or back by a
commit alone, under an opaque overlay panel and while the session is locked, a maximized window is constrained on every edge
(version 7 only), configure_bounds follows the output's usable area as a
panel's exclusive zone appears, xdg_popup.reposition moves a popup without re-creating it (repositioned with the
client's token, a new configure, and the pixels moved), a reactive popup is placed again when its window moves, and
the protocol's errors: positioner invalid_input, a popup
on a parent whose role is gone, not_the_topmost_popup, defunct_surfaces, invalid_serial, already_constructed,
not_constructed and invalid window geometry."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import ARGB8888, Connection, ProtocolError, shm_buffer  # noqa: E402
import layer_shell  # noqa: E402
import session_lock  # noqa: E402
import xdg_shell_client  # noqa: E402

OUTPUT_W, OUTPUT_H = 640, 480
MAXIMIZE, FULLSCREEN, MINIMIZE, WINDOW_MENU = 2, 3, 4, 1


def u32s(data):
    return [int.from_bytes(data[i:i + 4], sys.byteorder) for i in range(0, len(data), 4)]


class Window:
    """A toplevel made from an xdg_wm_base bound at `version`."""

    def __init__(self, conn, version=7, commit=True):
        self.conn = conn
        self.compositor = conn.bind("wl_compositor", 4)
        self.wm_base = conn.bind("xdg_wm_base", version)
        self.surface = conn.create("wl_surface", self.compositor, 0)
        self.xdg_surface = conn.create("xdg_surface", self.wm_base, 2, ("o", self.surface))
        self.toplevel = conn.create("xdg_toplevel", self.xdg_surface, 1)
        if commit:
            conn.send(self.surface, 6)  # the initial commit

    def configure(self):
        """Waits for the next configure sequence; acks it; returns the toplevel events that came before it."""
        event = self.conn.dispatch_until(lambda e: e.obj == self.xdg_surface and e.opcode == 0)
        self.conn.events.remove(event)
        before = self.conn.take(self.toplevel)
        self.conn.send(self.xdg_surface, 4, ("u", event.args("u")[0]))
        return before

    def states_until(self, state):
        """Acks configures until one carries `state`; returns its states (fails after ten without)."""
        for _ in range(10):
            configures = [e for e in self.configure() if e.opcode == 0]
            states = u32s(configures[-1].args("iia")[2]) if configures else []
            if state in states:
                return states
        return states

    def states_until_without(self, state):
        """Acks configures until one's states lack `state`; returns them (None after ten configures without)."""
        for _ in range(10):
            states = states_of(self.configure())
            if states is not None and state not in states:
                return states
        return None

    def map(self, width, height, color):
        buffer = shm_buffer(self.conn, width, height, color)
        self.conn.send(self.surface, 1, ("o", buffer), ("i", 0), ("i", 0))
        self.conn.send(self.surface, 6)
        self.conn.roundtrip()


def bounds_of(events):
    found = [e.args("ii") for e in events if e.opcode == 2]
    return tuple(found[-1]) if found else None


def wm_capabilities(kiln):
    with Connection(kiln.client_env) as conn:
        window = Window(conn, 7, commit=False)
        conn.roundtrip()
        early = [u32s(e.args("a")[0]) for e in conn.take(window.toplevel) if e.opcode == 3]
        check(len(early) == 1 and sorted(early[0]) == [MAXIMIZE, FULLSCREEN, MINIMIZE],
              f"wm_capabilities as soon as the toplevel is made, before any commit: maximize, fullscreen, minimize, "
              f"no window menu {early}")
        conn.send(window.surface, 6)  # the initial commit
        events = window.configure()
        caps = [u32s(e.args("a")[0]) for e in events if e.opcode == 3]
        check(caps == [], f"and not again with the first configure {caps}")
        window.map(100, 100, 0xff224466)
        # What it says, kiln does: each capability is answered by its state.
        conn.send(window.toplevel, 9)  # set_maximized
        states = window.states_until(xdg_shell_client.MAXIMIZED)
        check(xdg_shell_client.MAXIMIZED in states, f"maximize is honoured {states}")
        conn.send(window.toplevel, 10)  # unset_maximized
        window.configure()
        conn.send(window.toplevel, 11, ("o", 0))  # set_fullscreen
        states = window.states_until(xdg_shell_client.FULLSCREEN)
        check(xdg_shell_client.FULLSCREEN in states, f"fullscreen is honoured {states}")
    with Connection(kiln.client_env) as conn:
        window = Window(conn, 4)
        events = window.configure()
        check(not [e for e in events if e.opcode == 3], "a version 4 client gets no wm_capabilities")


CONSTRAINED = {10, 11, 12, 13}


def constrained(kiln):
    with Connection(kiln.client_env) as conn:
        window = Window(conn, 7)
        window.configure()
        window.map(200, 150, 0xff224488)
        conn.send(window.toplevel, 9)  # set_maximized
        states = set(window.states_until(xdg_shell_client.MAXIMIZED))
        check(CONSTRAINED <= states, f"a maximized window is constrained on all four edges {sorted(states)}")
        conn.send(window.toplevel, 10)  # unset_maximized
        for _ in range(10):
            states = set(states_of(window.configure()) or [])
            if xdg_shell_client.MAXIMIZED not in states:
                break
        check(not (CONSTRAINED & states), f"restored, no edge is constrained {sorted(states)}")
    with Connection(kiln.client_env) as conn:
        window = Window(conn, 6)
        window.configure()
        window.map(200, 150, 0xff224488)
        conn.send(window.toplevel, 9)
        states = set(window.states_until(xdg_shell_client.MAXIMIZED))
        check(not (CONSTRAINED & states), f"a version 6 client gets no constrained states {sorted(states)}")


def configure_bounds(kiln):
    with Connection(kiln.client_env) as conn:
        window = Window(conn, 7)
        bounds = bounds_of(window.configure())
        check(bounds == (OUTPUT_W, OUTPUT_H), f"configure_bounds is the whole output without panels {bounds}")
        window.map(200, 150, 0xff446622)
        with Connection(kiln.client_env) as panel_conn:
            panel = layer_shell.LayerSurface(panel_conn, layer_shell.TOP,
                                             layer_shell.ANCHOR_TOP | layer_shell.ANCHOR_LEFT |
                                             layer_shell.ANCHOR_RIGHT, (0, 30), zone=30)
            panel.map(layer_shell.GREEN)
            seen = []
            while True:
                bounds = bounds_of(window.configure())
                seen.append(bounds)
                if bounds == (OUTPUT_W, OUTPUT_H - 30):
                    break
                if len(seen) >= 10:
                    check(False, f"configure_bounds shrinks by the panel's zone (saw {seen})")
            check(True, f"a panel's exclusive zone makes configure_bounds {bounds}")
        while True:
            bounds = bounds_of(window.configure())
            if bounds == (OUTPUT_W, OUTPUT_H):
                break
        check(True, "when the panel goes, configure_bounds is the whole output again")


def reposition(kiln):
    with Connection(kiln.client_env) as conn:
        window = Window(conn, 7)
        window.configure()
        window.map(200, 150, 0xff606060)
        wx, wy, _, _ = xdg_shell_client.wait_box_sized(kiln, 0xff606060, 200, 150, "the parent is on screen")
        positioner = xdg_shell_client.make_positioner(conn, window.wm_base, (60, 40), (10, 10, 1, 1),
                                                      xdg_shell_client.TOP_LEFT, xdg_shell_client.BOTTOM_RIGHT, 0)
        popup = xdg_shell_client.Popup(conn, window.wm_base, window.xdg_surface, positioner)
        got = popup.configure()
        check(got == (10, 10, 60, 40), f"the popup's first configure {got}")
        popup.draw(60, 40, 0xffe0a000)
        xdg_shell_client.wait_box(kiln, 0xffe0a000, (wx + 10, wy + 10, wx + 70, wy + 50), "the popup is drawn")
        moved = xdg_shell_client.make_positioner(conn, window.wm_base, (60, 40), (100, 80, 1, 1),
                                                 xdg_shell_client.TOP_LEFT, xdg_shell_client.BOTTOM_RIGHT, 0)
        conn.send(popup.popup, 2, ("o", moved), ("u", 4242))  # reposition
        repositioned = conn.dispatch_until(lambda e: e.obj == popup.popup and e.opcode == 2)
        check(repositioned.args("u")[0] == 4242, "repositioned carries the client's token")
        got = popup.configure()
        check(got == (100, 80, 60, 40), f"and a new configure with the new place {got}")
        conn.send(popup.surface, 6)
        conn.roundtrip()
        xdg_shell_client.wait_box(kiln, 0xffe0a000, (wx + 100, wy + 80, wx + 160, wy + 120),
                                  "the same popup is drawn at its new place")
        check(conn.take(popup.popup, 1) == [], "the popup was not dismissed")


SUSPENDED = 9


def states_of(events):
    configures = [e for e in events if e.opcode == 0]
    return u32s(configures[-1].args("iia")[2]) if configures else None


def frame(conn, window):
    """Asks for a frame callback and commits; returns the callback."""
    callback = conn.create("wl_callback", window.surface, 3)
    conn.send(window.surface, 6)
    return callback


def suspended(kiln):
    with Connection(kiln.client_env) as conn, Connection(kiln.client_env) as cover_conn:
        below = Window(conn, 7)
        below.configure()
        below.map(200, 150, 0xff2040a0)
        xdg_shell_client.wait_box_sized(kiln, 0xff2040a0, 200, 150, "the window is on screen")
        conn.take(below.toplevel)
        # Another client's opaque window over the whole output.
        cover = Window(cover_conn, 7)
        cover.configure()
        region = cover_conn.create("wl_region", cover.compositor, 1)
        cover_conn.send(region, 1, ("i", 0), ("i", 0), ("i", OUTPUT_W), ("i", OUTPUT_H))  # add
        cover_conn.send(cover.surface, 4, ("o", region))  # set_opaque_region
        cover.map(OUTPUT_W, OUTPUT_H, 0xffa02040)
        xdg_shell_client.wait_box_sized(kiln, 0xffa02040, OUTPUT_W, OUTPUT_H, "the covering window fills the output")
        seen = []
        while True:
            states = states_of(below.configure())
            seen.append(states)
            if states is not None and SUSPENDED in states:
                break
            if len(seen) >= 10:
                check(False, f"the covered window is suspended (saw {seen})")
        check(True, f"a window wholly under an opaque one is configured suspended {states}")
        conn.send(below.surface, 6)
        # Its frame callbacks wait while the covering window's keep coming.
        held = frame(conn, below)
        for _ in range(3):
            done = frame(cover_conn, cover)
            cover_conn.dispatch_until(lambda e: e.obj == done and e.opcode == 0)
        conn.roundtrip()
        check(conn.take(held, 0) == [], "while suspended its frame callback is held (3 frames of the other drawn)")
        # The covering window goes: it is shown again, no longer suspended, and its frame comes.
        cover_conn.send(cover.toplevel, 0)
        cover_conn.send(cover.xdg_surface, 0)
        cover_conn.roundtrip()
        while True:
            states = states_of(below.configure())
            if states is not None and SUSPENDED not in states:
                break
        check(True, f"uncovered, it is configured without suspended {states}")
        conn.send(below.surface, 6)
        conn.dispatch_until(lambda e: e.obj == held and e.opcode == 0, timeout=10)
        check(True, "and its held frame callback comes")
        # A minimized window shows nowhere: it is suspended too.
        conn.send(below.toplevel, 13)  # set_minimized
        for _ in range(10):
            states = states_of(below.configure())
            if states is not None and SUSPENDED in states:
                break
        check(SUSPENDED in (states or []), f"a minimized window is configured suspended {states}")


def suspended_by_commit(kiln):
    """A window already mapped over another changes what it hides by a commit alone (its opaque region here, as a
    window that finishes drawing its background would): the one below is suspended, then shown again."""
    with Connection(kiln.client_env) as conn, Connection(kiln.client_env) as cover_conn:
        below = Window(conn, 7)
        below.configure()
        below.map(200, 150, 0xff2040a0)
        xdg_shell_client.wait_box_sized(kiln, 0xff2040a0, 200, 150, "the window is on screen")
        cover = Window(cover_conn, 7)
        cover.configure()
        # Over the whole output in a format with alpha and no opaque region: it hides nothing yet.
        buffer = shm_buffer(cover_conn, OUTPUT_W, OUTPUT_H, 0xffa02040, shm_format=ARGB8888)
        cover_conn.send(cover.surface, 1, ("o", buffer), ("i", 0), ("i", 0))
        cover_conn.send(cover.surface, 6)
        cover_conn.roundtrip()
        xdg_shell_client.wait_box_sized(kiln, 0xffa02040, OUTPUT_W, OUTPUT_H, "the covering window fills the output")
        conn.roundtrip()
        states = states_of(conn.take(below.toplevel))
        check(SUSPENDED not in (states or []),
              f"under a window with alpha and no opaque region it is not suspended {states}")
        region = cover_conn.create("wl_region", cover.compositor, 1)
        cover_conn.send(region, 1, ("i", 0), ("i", 0), ("i", OUTPUT_W), ("i", OUTPUT_H))  # add
        cover_conn.send(cover.surface, 4, ("o", region))  # set_opaque_region
        cover_conn.send(cover.surface, 6)  # commit: nothing else changes
        cover_conn.roundtrip()
        states = below.states_until(SUSPENDED)
        check(SUSPENDED in states, f"a commit making the window above opaque suspends the one below {states}")
        cover_conn.send(cover.surface, 4, ("o", 0))  # set_opaque_region(null)
        cover_conn.send(cover.surface, 6)
        cover_conn.roundtrip()
        states = below.states_until_without(SUSPENDED)
        check(states is not None, "a commit dropping that opaque region shows it again, not suspended")


def suspended_by_panel_and_lock(kiln):
    """Windows under an opaque layer-shell surface (an overlay filling the output, as a screensaver draws) are hidden
    too, and so are all of them while the session is locked: suspended, then shown again."""
    with Connection(kiln.client_env) as conn:
        below = Window(conn, 7)
        below.configure()
        below.map(200, 150, 0xff2040a0)
        xdg_shell_client.wait_box_sized(kiln, 0xff2040a0, 200, 150, "the window is on screen")
        conn.roundtrip()
        conn.take(below.toplevel)
        with Connection(kiln.client_env) as panel_conn:
            overlay = layer_shell.LayerSurface(panel_conn, layer_shell.OVERLAY, layer_shell.ANCHOR_TOP |
                                               layer_shell.ANCHOR_BOTTOM | layer_shell.ANCHOR_LEFT |
                                               layer_shell.ANCHOR_RIGHT)
            overlay.map(layer_shell.GREEN)  # XRGB: opaque
            check(SUSPENDED in (below.states_until(SUSPENDED) or []),
                  "a window under an opaque overlay filling the output is suspended")
            overlay.destroy()
            check(below.states_until_without(SUSPENDED) is not None,
                  "the overlay gone, it is shown again, not suspended")
        locker = session_lock.Locker(kiln)
        try:
            check(locker.answer() == session_lock.LOCKED, "the session locks")
            locker.lock_surface(session_lock.GREEN)
            check(SUSPENDED in (below.states_until(SUSPENDED) or []), "while locked the window is suspended")
            locker.unlock()
            check(below.states_until_without(SUSPENDED) is not None, "unlocked, it is not suspended")
        finally:
            locker.close()


def reactive(kiln):
    """A reactive popup left of its window slides back on screen when the window is maximized to the output's left
    edge: a new configure without the client asking. A popup that is not reactive stays as it was placed."""
    with Connection(kiln.client_env) as conn:
        window = Window(conn, 7)
        window.configure()
        window.map(200, 150, 0xff606060)
        xdg_shell_client.wait_box_sized(kiln, 0xff606060, 200, 150, "the parent is on screen")
        popups = {}
        for name, is_reactive in (("reactive", True), ("fixed", False)):
            positioner = xdg_shell_client.make_positioner(conn, window.wm_base, (50, 30), (-60, 10, 1, 1),
                                                          xdg_shell_client.TOP_LEFT, xdg_shell_client.BOTTOM_RIGHT,
                                                          xdg_shell_client.SLIDE_X)
            if is_reactive:
                conn.send(positioner, 7)  # set_reactive
            popup = xdg_shell_client.Popup(conn, window.wm_base, window.xdg_surface, positioner)
            got = popup.configure()
            check(got == (-60, 10, 50, 30), f"the {name} popup opens left of its window {got}")
            popup.draw(50, 30, 0xffe0a000 if is_reactive else 0xff00a0e0)
            popups[name] = popup
        conn.send(window.toplevel, 9)  # set_maximized
        for _ in range(10):
            configures = [e for e in window.configure() if e.opcode == 0]
            if configures and xdg_shell_client.MAXIMIZED in u32s(configures[-1].args("iia")[2]):
                width, height = configures[-1].args("ii")
                break
        window.map(width, height, 0xff606060)
        got = popups["reactive"].configure()
        check(got == (0, 10, 50, 30), f"the reactive popup slides back onto the output: a new configure {got}")
        conn.roundtrip()
        check(conn.take(popups["fixed"].xdg_surface, 0) == [], "the popup that is not reactive is not configured")


def expect_error(kiln, what, body, interface, code):
    try:
        with Connection(kiln.client_env) as conn:
            body(conn)
            conn.roundtrip()
            conn.roundtrip()
    except ProtocolError as error:
        check(interface in str(error) and f": {code} " in str(error), f"{what}: {error}")
        return
    raise AssertionError(f"{what}: no protocol error")


def errors(kiln):
    def positioner(conn):
        wm_base = conn.bind("xdg_wm_base", 7)
        return conn.create("xdg_positioner", wm_base, 1), wm_base

    def negative_anchor_rect(conn):
        p, _ = positioner(conn)
        conn.send(p, 2, ("i", 0), ("i", 0), ("i", -1), ("i", 5))

    expect_error(kiln, "an anchor rect of negative size is invalid_input", negative_anchor_rect, "xdg_positioner", 0)

    def bad_anchor(conn):
        p, _ = positioner(conn)
        conn.send(p, 3, ("u", 9))

    expect_error(kiln, "anchor 9 is invalid_input", bad_anchor, "xdg_positioner", 0)

    def negative_parent_size(conn):
        p, _ = positioner(conn)
        conn.send(p, 8, ("i", -5), ("i", 10))

    expect_error(kiln, "a negative parent size is invalid_input", negative_parent_size, "xdg_positioner", 0)

    def destroyed_parent(conn):
        window = Window(conn, 7)
        window.configure()
        conn.send(window.toplevel, 0)  # the parent's role object goes
        p = xdg_shell_client.make_positioner(conn, window.wm_base, (20, 20), (0, 0, 1, 1), 5, 8, 0)
        xdg_shell_client.Popup(conn, window.wm_base, window.xdg_surface, p)

    expect_error(kiln, "a popup on a parent whose toplevel is destroyed is invalid_popup_parent", destroyed_parent,
                 "xdg_wm_base", 3)

    def not_topmost(conn):
        window = Window(conn, 7)
        window.configure()
        window.map(100, 100, 0xff101010)
        p = xdg_shell_client.make_positioner(conn, window.wm_base, (20, 20), (0, 0, 1, 1), 5, 8, 0)
        outer = xdg_shell_client.Popup(conn, window.wm_base, window.xdg_surface, p)
        outer.configure()
        xdg_shell_client.Popup(conn, window.wm_base, outer.xdg_surface, p)
        conn.send(outer.popup, 0)  # destroyed before its child

    expect_error(kiln, "destroying a popup below another is not_the_topmost_popup", not_topmost, "xdg_wm_base", 2)

    def defunct_surfaces(conn):
        window = Window(conn, 7)
        conn.send(window.wm_base, 0)

    expect_error(kiln, "xdg_wm_base destroyed before its surfaces is defunct_surfaces", defunct_surfaces,
                 "xdg_wm_base", 1)

    def invalid_serial(conn):
        window = Window(conn, 7)
        window.configure()
        conn.send(window.xdg_surface, 4, ("u", 987654))

    expect_error(kiln, "ack_configure of a serial never sent is invalid_serial", invalid_serial, "xdg_surface", 4)

    def already_constructed(conn):
        window = Window(conn, 7)
        conn.create("xdg_toplevel", window.xdg_surface, 1)

    expect_error(kiln, "a second get_toplevel is already_constructed", already_constructed, "xdg_surface", 2)

    def not_constructed(conn):
        compositor = conn.bind("wl_compositor", 4)
        wm_base = conn.bind("xdg_wm_base", 7)
        surface = conn.create("wl_surface", compositor, 0)
        xdg_surface = conn.create("xdg_surface", wm_base, 2, ("o", surface))
        conn.send(xdg_surface, 3, ("i", 0), ("i", 0), ("i", 10), ("i", 10))

    expect_error(kiln, "set_window_geometry with no role is not_constructed", not_constructed, "xdg_surface", 1)

    def bad_geometry(conn):
        window = Window(conn, 7)
        conn.send(window.xdg_surface, 3, ("i", 0), ("i", 0), ("i", 0), ("i", 10))

    expect_error(kiln, "a window geometry of width 0 is invalid_size", bad_geometry, "xdg_surface", 5)

    def min_above_max(conn):
        window = Window(conn, 7)
        conn.send(window.toplevel, 7, ("i", 100), ("i", 100))  # set_max_size
        conn.send(window.toplevel, 8, ("i", 200), ("i", 50))   # set_min_size
        conn.send(window.surface, 6)

    expect_error(kiln, "a min size above the max size is invalid_size", min_above_max, "xdg_toplevel", 2)
    def surface_with_buffer(conn):
        compositor = conn.bind("wl_compositor", 4)
        wm_base = conn.bind("xdg_wm_base", 7)
        surface = conn.create("wl_surface", compositor, 0)
        conn.send(surface, 1, ("o", shm_buffer(conn, 16, 16, 0xff000000)), ("i", 0), ("i", 0))
        conn.send(surface, 6)
        conn.create("xdg_surface", wm_base, 2, ("o", surface))

    expect_error(kiln, "get_xdg_surface on a surface with a buffer is invalid_surface_state", surface_with_buffer,
                 "xdg_wm_base", 4)

    def late_grab(conn):
        window = Window(conn, 7)
        window.configure()
        window.map(100, 100, 0xff101010)
        seat = conn.bind("wl_seat", 5)
        p = xdg_shell_client.make_positioner(conn, window.wm_base, (20, 20), (0, 0, 1, 1), 5, 8, 0)
        popup = xdg_shell_client.Popup(conn, window.wm_base, window.xdg_surface, p)  # committed once
        conn.send(popup.popup, 1, ("o", seat), ("u", 1))  # grab after the first commit

    expect_error(kiln, "a grab after the popup's first commit is invalid_grab", late_grab, "xdg_popup", 0)
    check(kiln.alive(), "kiln is still running after the bad clients")


def main():
    need("grim")
    for test in (wm_capabilities, constrained, configure_bounds, reposition, reactive, suspended, suspended_by_commit,
                 suspended_by_panel_and_lock, errors):
        print(f"--- {test.__name__}")
        with Kiln(size=f"{OUTPUT_W}x{OUTPUT_H}") as kiln:
            xdg_shell_client.wait_listening(kiln)
            test(kiln)
            check(kiln.alive(), f"kiln is still running after {test.__name__}")


if __name__ == "__main__":
    run_test(main)
