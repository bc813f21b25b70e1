#!/usr/bin/env python3
"""xdg_system_bell_v1 on headless kiln: a ring runs kiln.ini's [bell] command (seen here by the file it writes),
with or without a window named; a client ringing in a burst starts the command once, not once a ring; the stats
count every ring and those tied to a window; with no command a ring runs nothing and the client stays connected."""
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test, stat  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402

BELL = "xdg_system_bell_v1"
MIN_INTERVAL = 0.1  # kiln starts the command at most once per 100 ms (XdgSystemBellV1::kMinInterval)


def lines(path):
    return path.read_text().count("\n") if path.exists() else 0


def ring(conn, bell, surface=0):
    conn.send(bell, 1, ("o", surface))  # ring
    conn.roundtrip()


def with_command(scratch):
    rang = Path(scratch) / "rang"
    ini = Path(scratch) / "kiln.ini"
    ini.write_text(f"[bell]\ncommand=echo ring >> {rang}\n")
    with Kiln("--config", str(ini)) as kiln:
        with Connection(kiln.client_env) as conn:
            check(conn.globals.get(BELL, (0, 0))[1] == 1, f"kiln offers {BELL} version 1")
            bell = conn.bind(BELL, 1)

            ring(conn, bell)
            kiln.wait_for(lambda: lines(rang) == 1, "the [bell] command to run for a ring with no window")
            check(True, "a ring with a null surface runs the [bell] command")

            window = Toplevel(conn, "bell ringer")
            window.commit()
            window.map(64, 64)
            time.sleep(MIN_INTERVAL * 2)  # past the rate limit, so this ring may start the command again
            ring(conn, bell, window.surface)
            kiln.wait_for(lambda: lines(rang) == 2, "the [bell] command to run for a ring naming a window")
            check(True, "a ring naming the client's toplevel runs the [bell] command")

            time.sleep(MIN_INTERVAL * 2)
            for _ in range(50):
                conn.send(bell, 1, ("o", 0))
            conn.roundtrip()
            kiln.wait_for(lambda: lines(rang) >= 3, "the [bell] command to run for a burst of rings")
            time.sleep(1)  # any further commands the burst started would have written by now
            check(lines(rang) <= 4, f"50 rings in a burst start the command once or twice, not 50 times "
                  f"({lines(rang) - 2})")

            conn.send(bell, 0)  # destroy
            conn.roundtrip()
        check(kiln.alive(), "kiln runs on after the ringing client leaves")
        status, stats = kiln.stop()
        check(status == 0, f"kiln exits cleanly ({status})")
        check(stat(stats, "bell.rings") == 52 and stat(stats, "bell.window_rings") == 1,
              f"the stats count 52 rings, one for a window ({stats.get('bell')})")
        check(stat(stats, "bell.commands_run") == lines(rang),
              f"the stats count each command started ({stats.get('bell')}, {lines(rang)} lines)")


def without_command():
    with Kiln() as kiln:
        with Connection(kiln.client_env) as conn:
            bell = conn.bind(BELL, 1)
            ring(conn, bell)
            ring(conn, bell)
        status, stats = kiln.stop()
        check(stat(stats, "bell.rings") == 2 and stat(stats, "bell.commands_run") == 0,
              f"with no [bell] command, rings are counted and nothing runs ({stats.get('bell')})")


def main():
    scratch = tempfile.mkdtemp(prefix="kiln-bell-")
    try:
        with_command(scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    without_command()


run_test(main)
