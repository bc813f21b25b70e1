#!/usr/bin/env python3
"""No file can be made in XDG_RUNTIME_DIR (a tmpfs out of inodes), or the socket's path is too long for a Unix
socket: kiln exits 1 and its one line names that cause, not a held lock (which it blamed for both before); a lock
file another process holds is named as that. The inode case mounts a tiny tmpfs (root; exit 77 where this process
may not mount)."""
import fcntl
import re
from pathlib import Path

from oneshot import Mount, check_no_crash, kiln_lines, run_kiln, scratch
from kiln_harness import check, run_test

SOCKET = "kiln-env-socket"


def refused(tmp, runtime, socket, reason, what):
    result = run_kiln(tmp, ["-s", "true", "--exit-with-startup"], env={"XDG_RUNTIME_DIR": str(runtime)},
                      socket=socket)
    check_no_crash(result, what)
    check(result.returncode == 1, f"{what}: kiln exits 1 (got {result.returncode})")
    lines = kiln_lines(result, reason)
    check(len(lines) == 1, f"{what}: one line says why ({reason!r} in {result.stderr.splitlines()})")
    check(not kiln_lines(result, "lock file"), f"{what}: and blames no lock file")


def main():
    with scratch() as tmp:
        long_name = "w" * 120  # with the runtime dir's path, past the 107 bytes a socket path may have
        refused(tmp, tmp, long_name, r"the path is \d+ bytes long, more than a Unix socket's 107",
                "a socket name too long")

        with open(Path(tmp) / f"{SOCKET}.lock", "w") as lock:  # as a compositor still starting holds it
            fcntl.flock(lock, fcntl.LOCK_EX)
            result = run_kiln(tmp, ["-s", "true", "--exit-with-startup"], env={"XDG_RUNTIME_DIR": tmp}, socket=SOCKET)
            check_no_crash(result, "a held lock")
            lines = kiln_lines(result, re.escape(f"in use (its lock file {SOCKET}.lock is held)"))
            check(result.returncode == 1 and len(lines) == 1, f"a held lock: exit 1 and one line names it "
                  f"({result.returncode}, {result.stderr.splitlines()})")

        full = Path(tmp) / "full"
        full.mkdir()
        with Mount(["-t", "tmpfs", "-o", "size=1m,nr_inodes=16,mode=0700", "tmpfs"], full):
            made = 0
            try:
                while True:  # every inode taken: the root folder has one, the rest go to empty files
                    (full / f"f{made}").touch()
                    made += 1
            except OSError as error:
                print(f"{made} files made, then: {error}")
            check(made < 16, f"the tmpfs is out of inodes after {made} files")
            refused(tmp, full, SOCKET, re.escape(f"XDG_RUNTIME_DIR={full}: no file can be made there: its file "
                                                 "system has no free inodes"), "a runtime dir out of inodes")
            (full / "f0").unlink()
            (full / "f1").unlink()
            result = run_kiln(tmp, ["-s", "true", "--exit-with-startup"], env={"XDG_RUNTIME_DIR": str(full)},
                              socket=SOCKET)
            check(result.returncode == 0, f"with two inodes free again (lock file and socket) kiln starts and exits "
                  f"0 (got {result.returncode})")


run_test(main)
