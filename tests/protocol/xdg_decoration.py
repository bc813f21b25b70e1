#!/usr/bin/env python3
"""xdg-decoration on headless kiln: every set_mode(client), set_mode(server) and unset_mode is answered with a
zxdg_toplevel_decoration_v1.configure and an xdg_surface.configure, also when kiln's answer is the mode the window
already has (wlroots 0.15 sent one only when the mode changed), under each [decorations] rule."""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402

CLIENT_SIDE, SERVER_SIDE = 1, 2
SET_MODE, UNSET_MODE = 1, 2


def expect_answer(conn, window, decoration, what):
    """Waits for the xdg_surface.configure that answers a request; returns the decoration mode sent before it."""
    try:
        conn.dispatch_until(lambda e: e.obj == window.xdg_surface and e.opcode == 0)
    except AssertionError:
        raise AssertionError(f"{what}: no xdg_surface.configure came")
    modes = [e.args("u")[0] for e in conn.take(decoration, 0)]
    check(modes, f"{what}: a zxdg_toplevel_decoration_v1.configure came (modes {modes})")
    window.wait_configure()
    conn.take(window.toplevel)
    return modes[-1]


def requests_answered(kiln, rule):
    expected = {"client": (CLIENT_SIDE, CLIENT_SIDE, CLIENT_SIDE),
                "server": (CLIENT_SIDE, SERVER_SIDE, SERVER_SIDE)}[rule]
    with Connection(kiln.client_env) as conn:
        manager = conn.bind("zxdg_decoration_manager_v1", 1)
        window = Toplevel(conn, f"decoration {rule}")
        decoration = conn.create("zxdg_toplevel_decoration_v1", manager, 1, ("o", window.toplevel))
        window.commit()
        expect_answer(conn, window, decoration, f"{rule}: the first configure")
        requests = ((SET_MODE, CLIENT_SIDE, "set_mode(client)"), (SET_MODE, SERVER_SIDE, "set_mode(server)"),
                    (UNSET_MODE, None, "unset_mode"))
        # Each request twice: the second asks for what the window has already.
        for (opcode, mode, name), answer in zip(requests, expected):
            for attempt in ("first", "repeated"):
                conn.send(decoration, opcode, *([("u", mode)] if mode else []))
                got = expect_answer(conn, window, decoration, f"{rule}: {name}, {attempt}")
                check(got == answer, f"{rule}: {name}, {attempt}: answered with mode {got}, expected {answer}")


def main():
    with tempfile.TemporaryDirectory(prefix="kiln-xdg-decoration-") as scratch:
        for rule in ("client", "server"):
            config = Path(scratch) / f"{rule}.ini"
            config.write_text(f"[decorations]\nmode={rule}\n")
            with Kiln("--config", str(config)) as kiln:
                requests_answered(kiln, rule)


run_test(main)
