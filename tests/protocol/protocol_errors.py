#!/usr/bin/env python3
"""Requests the protocols forbid get the protocol error they name, on the object they name, and only the offending
client is cut off: a truncated wl_shm pool, an xdg_surface for a surface with another role, a buffer before the
first configure, a toplevel made its own parent or its descendant's child, a second or orphaned xdg-decoration, and
a viewport reaching outside its buffer or made twice."""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel, expect_protocol_error, shm_buffer  # noqa: E402

# Error codes from the protocol XML.
WL_SHM_INVALID_FD = 2
XDG_WM_BASE_ROLE = 0
XDG_SURFACE_UNCONFIGURED_BUFFER = 3
XDG_TOPLEVEL_INVALID_PARENT = 1
DECORATION_ALREADY_CONSTRUCTED, DECORATION_ORPHANED = 1, 2
VIEWPORTER_VIEWPORT_EXISTS = 0
VIEWPORT_OUT_OF_BUFFER = 2


def check_error(conn, interface, code, what):
    error = expect_protocol_error(conn)
    text = str(error)
    check(f"protocol error on {interface}@" in text and f": {code} " in text,
          f"{what}: {interface} error {code} (got '{text}')")


def truncated_shm_pool(kiln, mapped):
    """A pool whose file shrank below the pool's size after creation: using a buffer from it is wl_shm's invalid_fd,
    posted on the buffer (libwayland's SIGBUS guard around kiln's upload finds the pages gone); on a bare surface and
    on a mapped window's."""
    with Connection(kiln.client_env) as conn:
        window = None
        if mapped:
            window = Toplevel(conn, "truncated")
            window.commit()
            window.map(64, 64)
        shm = conn.bind("wl_shm", 1)
        compositor = conn.bind("wl_compositor", 4)
        size = 64 * 64 * 4
        fd = os.memfd_create("kiln-truncated-pool", os.MFD_CLOEXEC)
        os.ftruncate(fd, size)
        pool = conn.new_id("wl_shm_pool")
        conn.send(shm, 0, ("n", pool), ("i", size), fds=[fd])
        buffer = conn.create("wl_buffer", pool, 0, ("i", 0), ("i", 64), ("i", 64), ("i", 256), ("u", 1))
        conn.roundtrip()
        os.ftruncate(fd, 4096)  # a page: the rest of the pool's mapping is gone
        os.close(fd)
        surface = window.surface if window else conn.create("wl_surface", compositor, 0)
        conn.send(surface, 1, ("o", buffer), ("i", 0), ("i", 0))
        conn.send(surface, 2, ("i", 0), ("i", 0), ("i", 64), ("i", 64))
        conn.send(surface, 6)
        check_error(conn, "wl_buffer", WL_SHM_INVALID_FD, "a buffer from a truncated pool")


def xdg_surface_on_subsurface(kiln):
    with Connection(kiln.client_env) as conn:
        compositor = conn.bind("wl_compositor", 4)
        subcompositor = conn.bind("wl_subcompositor", 1)
        wm_base = conn.bind("xdg_wm_base", 1)
        parent = conn.create("wl_surface", compositor, 0)
        child = conn.create("wl_surface", compositor, 0)
        conn.create("wl_subsurface", subcompositor, 1, ("o", child), ("o", parent))
        conn.roundtrip()
        conn.create("xdg_surface", wm_base, 2, ("o", child))
        check_error(conn, "xdg_wm_base", XDG_WM_BASE_ROLE, "get_xdg_surface on a subsurface")


def unconfigured_buffer(kiln, case):
    """`case`: 'attach' (no role, no commit), 'no-role' (attach and commit with no role), 'first-commit' (a
    toplevel whose first commit carries a buffer) or 'unacked' (a buffer committed after the first configure came
    but before it was acked)."""
    with Connection(kiln.client_env) as conn:
        compositor = conn.bind("wl_compositor", 4)
        wm_base = conn.bind("xdg_wm_base", 1)
        surface = conn.create("wl_surface", compositor, 0)
        buffer = shm_buffer(conn, 32, 32, 0xff123456)
        conn.roundtrip()
        xdg_surface = conn.create("xdg_surface", wm_base, 2, ("o", surface))
        if case in ("first-commit", "unacked"):
            conn.create("xdg_toplevel", xdg_surface, 1)
        if case == "unacked":
            conn.send(surface, 6)
            conn.dispatch_until(lambda e: e.obj == xdg_surface and e.opcode == 0)
        conn.send(surface, 1, ("o", buffer), ("i", 0), ("i", 0))
        if case != "attach":
            conn.send(surface, 6)
        check_error(conn, "xdg_surface", XDG_SURFACE_UNCONFIGURED_BUFFER, f"a buffer before configure ({case})")


def configured_late_attach_is_fine(kiln):
    """A buffer attached once the first configure came, and committed after it is acked, maps the window: kiln's
    early refusal does not catch it."""
    with Connection(kiln.client_env) as conn:
        window = Toplevel(conn, "late attach")
        window.commit()
        event = conn.dispatch_until(lambda e: e.obj == window.xdg_surface and e.opcode == 0)
        conn.send(window.surface, 1, ("o", shm_buffer(conn, 32, 32, 0xff654321)), ("i", 0), ("i", 0))
        conn.send(window.xdg_surface, 4, ("u", event.args("u")[0]))
        window.commit()
        conn.roundtrip()
        conn.roundtrip()


def set_parent_loop(kiln, case):
    with Connection(kiln.client_env) as conn:
        parent = Toplevel(conn, "parent")
        child = Toplevel(conn, "child")
        conn.send(child.toplevel, 1, ("o", parent.toplevel))
        conn.roundtrip()
        if case == "self":
            conn.send(parent.toplevel, 1, ("o", parent.toplevel))
        else:
            grandchild = Toplevel(conn, "grandchild")
            conn.send(grandchild.toplevel, 1, ("o", child.toplevel))
            conn.roundtrip()
            conn.send(parent.toplevel, 1, ("o", grandchild.toplevel))
        check_error(conn, "xdg_toplevel", XDG_TOPLEVEL_INVALID_PARENT, f"set_parent to {case}")


def decoration_errors(kiln, case):
    with Connection(kiln.client_env) as conn:
        manager = conn.bind("zxdg_decoration_manager_v1", 1)
        window = Toplevel(conn, "decorated")
        conn.create("zxdg_toplevel_decoration_v1", manager, 1, ("o", window.toplevel))
        conn.roundtrip()
        if case == "second":
            conn.create("zxdg_toplevel_decoration_v1", manager, 1, ("o", window.toplevel))
            check_error(conn, "zxdg_decoration_manager_v1", DECORATION_ALREADY_CONSTRUCTED, "a second decoration")
        else:
            conn.send(window.toplevel, 0)  # destroy, the decoration still alive
            check_error(conn, "zxdg_decoration_manager_v1", DECORATION_ORPHANED, "a toplevel before its decoration")


def viewport_errors(kiln, case):
    with Connection(kiln.client_env) as conn:
        compositor = conn.bind("wl_compositor", 4)
        viewporter = conn.bind("wp_viewporter", 1)
        surface = conn.create("wl_surface", compositor, 0)
        viewport = conn.create("wp_viewport", viewporter, 1, ("o", surface))
        if case == "second":
            conn.create("wp_viewport", viewporter, 1, ("o", surface))
            check_error(conn, "wp_viewporter", VIEWPORTER_VIEWPORT_EXISTS, "a second viewport")
            return
        conn.send(surface, 1, ("o", shm_buffer(conn, 32, 32, 0xff00ff00)), ("i", 0), ("i", 0))
        conn.send(viewport, 1, ("f", 16.0), ("f", 16.0), ("f", 32.0), ("f", 8.0))  # set_source, past the right edge
        conn.send(surface, 6)
        check_error(conn, "wp_viewport", VIEWPORT_OUT_OF_BUFFER, "a source outside the buffer")


def viewport_within_buffer_is_fine(kiln):
    """A source rectangle reaching the buffer's last pixel, on a scale-2 buffer, and a second viewport once the first
    is destroyed: no error."""
    with Connection(kiln.client_env) as conn:
        compositor = conn.bind("wl_compositor", 4)
        viewporter = conn.bind("wp_viewporter", 1)
        surface = conn.create("wl_surface", compositor, 0)
        viewport = conn.create("wp_viewport", viewporter, 1, ("o", surface))
        conn.send(surface, 1, ("o", shm_buffer(conn, 64, 32, 0xff00ff00)), ("i", 0), ("i", 0))
        conn.send(surface, 8, ("i", 2))  # set_buffer_scale: 32x16 in surface coordinates
        conn.send(viewport, 1, ("f", 16.0), ("f", 8.0), ("f", 16.0), ("f", 8.0))
        conn.send(surface, 6)
        conn.roundtrip()
        conn.send(viewport, 0)
        conn.create("wp_viewport", viewporter, 1, ("o", surface))
        conn.send(surface, 6)
        conn.roundtrip()


def main():
    with Kiln() as kiln:
        # A well-behaved client stays connected through every other client's error.
        good = Connection(kiln.client_env)
        window = Toplevel(good, "good")
        window.commit()
        window.map(100, 100)

        truncated_shm_pool(kiln, mapped=False)
        truncated_shm_pool(kiln, mapped=True)
        xdg_surface_on_subsurface(kiln)
        for case in ("attach", "no-role", "first-commit", "unacked"):
            unconfigured_buffer(kiln, case)
        configured_late_attach_is_fine(kiln)
        for case in ("self", "descendant"):
            set_parent_loop(kiln, case)
        for case in ("second", "orphaned"):
            decoration_errors(kiln, case)
        for case in ("out-of-buffer", "second"):
            viewport_errors(kiln, case)
        viewport_within_buffer_is_fine(kiln)

        good.roundtrip()
        check(kiln.alive(), "kiln survived every bad client")
        good.close()
        status, _ = kiln.stop()
        check(status == 0, "kiln exits 0")


run_test(main)
