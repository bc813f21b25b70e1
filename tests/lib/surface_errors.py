"""One protocol error case of a per-surface extension, on a kiln of its own: the error names the right object and
code, and kiln runs on."""
from kiln_harness import Kiln, check
from wayland_wire import Connection, expect_protocol_error


def expect_surface_error(what, build, expected, manager=None, version=1):
    """A wl_surface is made (and `manager` bound, when named); `build(conn, [manager,] surface)` sends the requests
    that must be refused and returns the object the error must name; `expected` is the error's text after it."""
    with Kiln() as kiln:
        with Connection(kiln.client_env) as conn:
            compositor = conn.bind("wl_compositor", 4)
            surface = conn.create("wl_surface", compositor, 0)
            if manager:
                target = build(conn, conn.bind(manager, version), surface)
            else:
                target = build(conn, surface)
            got = expect_protocol_error(conn)
            check(f"@{target}: {expected} " in str(got), f"{what} ({got})")
        check(kiln.alive(), "kiln runs on")
