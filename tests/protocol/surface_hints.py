#!/usr/bin/env python3
"""wp_content_type_manager_v1 and wp_tearing_control_manager_v1 on headless kiln: each surface's hint is
double-buffered (applied with its commit), destroying the object reverts it at the next commit, a destroyed surface's
object is inert; kiln's stats count the surfaces with each hint committed (kiln keeps vsync whatever the tearing
hint). Errors: a second object for one surface (already_constructed, tearing_control_exists) and a value outside the
enum (wl_display invalid_method)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test, stat  # noqa: E402
from wayland_wire import Connection  # noqa: E402
from surface_errors import expect_surface_error  # noqa: E402

CONTENT = "wp_content_type_manager_v1"
TEARING = "wp_tearing_control_manager_v1"
NONE, PHOTO, VIDEO, GAME = 0, 1, 2, 3
VSYNC, ASYNC = 0, 1


def content_type(conn, manager, surface, value=None):
    obj = conn.create("wp_content_type_v1", manager, 1, ("o", surface))  # get_surface_content_type
    if value is not None:
        conn.send(obj, 1, ("u", value))  # set_content_type
    return obj


def tearing(conn, manager, surface, value=None):
    obj = conn.create("wp_tearing_control_v1", manager, 1, ("o", surface))  # get_tearing_control
    if value is not None:
        conn.send(obj, 0, ("u", value))  # set_presentation_hint
    return obj


def commit(conn, surface):
    conn.send(surface, 6)


def hints_counted():
    with Kiln() as kiln:
        conn = Connection(kiln.client_env)
        check(conn.globals.get(CONTENT, (0, 0))[1] == 1 and conn.globals.get(TEARING, (0, 0))[1] == 1,
              f"kiln offers {CONTENT} and {TEARING} version 1")
        compositor = conn.bind("wl_compositor", 4)
        types = conn.bind(CONTENT, 1)
        tear = conn.bind(TEARING, 1)
        s = [conn.create("wl_surface", compositor, 0) for _ in range(8)]

        content_type(conn, types, s[0], VIDEO)
        commit(conn, s[0])                                   # video
        content_type(conn, types, s[1], GAME)
        commit(conn, s[1])                                   # game
        content_type(conn, types, s[2], PHOTO)               # not committed: none
        obj = content_type(conn, types, s[3], VIDEO)
        commit(conn, s[3])
        conn.send(obj, 0)                                    # destroy, not committed: still video
        obj = content_type(conn, types, s[4], PHOTO)
        commit(conn, s[4])
        conn.send(obj, 0)
        commit(conn, s[4])                                   # the revert committed: none
        again = content_type(conn, types, s[4])              # a new object once the old is gone: no error
        conn.send(again, 1, ("u", GAME))                     # not committed
        obj = content_type(conn, types, s[5], GAME)
        commit(conn, s[5])
        conn.send(s[5], 0)                                   # the surface goes: not counted, its object inert
        conn.send(obj, 1, ("u", VIDEO))

        tearing(conn, tear, s[0], ASYNC)
        commit(conn, s[0])                                   # async
        tearing(conn, tear, s[1], ASYNC)                     # not committed: vsync
        obj = tearing(conn, tear, s[7], ASYNC)
        commit(conn, s[7])
        conn.send(obj, 0, ("u", VSYNC))
        commit(conn, s[7])                                   # back to vsync
        obj = tearing(conn, tear, s[6], ASYNC)
        commit(conn, s[6])
        conn.send(obj, 1)                                    # destroy: vsync at the next commit
        commit(conn, s[6])
        conn.roundtrip()
        check(True, "every request is taken without error")

        status, stats = kiln.stop()  # the client is still connected: its surfaces are counted
        conn.close()
        check(status == 0, f"kiln exits cleanly ({status})")
        got = {name: stat(stats, f"surfaces.content_type_{name}") for name in ("photo", "video", "game")}
        check(got == {"photo": 0, "video": 2, "game": 1},
              f"committed content types: 2 video (one object destroyed since), 1 game; a pending photo, a reverted "
              f"photo and a destroyed surface's game are not ({got})")
        async_count = stat(stats, "surfaces.tearing_async")
        check(async_count == 1, f"one surface has async committed ({async_count})")


def error(what, build, expected):
    expect_surface_error(what, build, expected)



def main():
    hints_counted()

    def second_content_type(conn, surface):
        manager = conn.bind(CONTENT, 1)
        content_type(conn, manager, surface)
        content_type(conn, manager, surface)
        return manager
    error("a second wp_content_type_v1 for a surface is already_constructed", second_content_type, 0)

    def second_tearing(conn, surface):
        manager = conn.bind(TEARING, 1)
        tearing(conn, manager, surface)
        tearing(conn, manager, surface)
        return manager
    error("a second wp_tearing_control_v1 for a surface is tearing_control_exists", second_tearing, 0)
    error("a content type outside the enum is invalid_method",
          lambda conn, surface: content_type(conn, conn.bind(CONTENT, 1), surface, 4), 1)
    error("a presentation hint outside the enum is invalid_method",
          lambda conn, surface: tearing(conn, conn.bind(TEARING, 1), surface, 2), 1)


run_test(main)
