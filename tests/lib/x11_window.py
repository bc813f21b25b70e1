"""X11 clients under kiln's Xwayland: the DISPLAY kiln announces, and kiln-x11-client windows driven over stdin."""
import os
import re
import select
import subprocess
import time

from kiln_harness import build_dir, check

X11_CLIENT = os.environ.get("KILN_X11_CLIENT", str(build_dir() / "clients" / "kiln-x11-client"))


def x_display(kiln):
    """The DISPLAY kiln announces in its log."""
    found = kiln.wait_for(lambda: re.search(r"DISPLAY=(:\d+)", kiln.logs()), "kiln to announce its X display")
    return found.group(1)


class XWindow:
    """A kiln-x11-client window: one colour, titled "x11 window RRGGBB", driven by commands on its stdin."""

    def __init__(self, kiln, display, color, x, y, w, h, *extra, timeout=10):
        self.proc = kiln.spawn([X11_CLIENT, "window", color, str(x), str(y), str(w), str(h), *extra],
                               env={"DISPLAY": display}, stdin=subprocess.PIPE)
        self.id = int(self.read_line("window ", timeout=timeout).split()[1])

    def read_line(self, prefix, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            line = self.proc.stdout.readline().decode(errors="replace")
            if not line:
                raise AssertionError(f"kiln-x11-client ended (status {self.proc.wait()}) before printing {prefix!r}")
            if line.startswith(prefix):
                return line.strip()
            print(f"kiln-x11-client: {line.rstrip()}")
        raise AssertionError(f"kiln-x11-client printed no {prefix!r} line within {timeout} s")

    def command(self, text, answer):
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()
        return self.read_line(answer)

    def active(self):
        return int(self.command("active", "active ").split()[1])

    def geometry(self):
        """(x, y, width, height) as X has it."""
        return tuple(int(v) for v in self.command("geometry", "geometry ").split()[1:])

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.write(b"quit\n")
            self.proc.stdin.flush()
            self.proc.wait(10)


def wait_active(window, expected, what):
    """Waits until X's _NET_ACTIVE_WINDOW (as `window`'s client reads it) is `expected`."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        active = window.active()
        if active == expected:
            check(True, what)
            return
        time.sleep(0.1)
    raise AssertionError(f"{what}: _NET_ACTIVE_WINDOW is {active}, not {expected}")
