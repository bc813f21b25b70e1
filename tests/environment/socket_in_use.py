#!/usr/bin/env python3
"""A second kiln asked for a socket name a running kiln listens on exits 1 saying so, and leaves the first one's
socket alone: a new client still connects to the first kiln and draws."""
from oneshot import DRAW_THREE_FRAMES, check_no_crash, kiln_lines, run_kiln, scratch
from kiln_harness import Kiln, check, run_test
from wayland_wire import Connection

SOCKET = "kiln-env-socket"


def main():
    with Kiln(socket=SOCKET) as first, scratch() as tmp:
        second = run_kiln(tmp, ["-s", "true", "--exit-with-startup"], env={"XDG_RUNTIME_DIR": first.runtime},
                          socket=SOCKET)
        check_no_crash(second, "the second kiln")
        check(second.returncode == 1, f"the second kiln exits 1 (got {second.returncode})")
        lines = kiln_lines(second, f"socket '{SOCKET}' in .*another compositor listens there")
        check(len(lines) == 1, f"and says in one line that the name is in use ({lines})")
        check(first.alive(), "the first kiln still runs")
        with Connection(first.client_env) as conn:
            conn.bind("wl_compositor", 4)
            conn.roundtrip()
        print("ok: a new client connects to the first kiln's socket and gets its globals")
        drew = first.run(DRAW_THREE_FRAMES.split(), timeout=60)
        check(drew.returncode == 0, f"and a client draws frames on it (exit {drew.returncode}: {drew.stdout[-300:]})")


run_test(main)
