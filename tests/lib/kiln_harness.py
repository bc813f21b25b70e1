"""Starts kiln (or a client) on a private socket and runtime dir per test, takes screenshots and reads its stats.

Used by the protocol, x11, nested and dmabuf suites. Python 3 standard library only. A test script calls
`skip(reason)` to exit 77 (meson's skip), and `check(condition, message)` for assertions that print what they checked.
"""
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rig_time import time_scale  # noqa: F401  (tests take it from here too)

SKIP = 77
# What AddressSanitizer, LeakSanitizer and UBSan print (scripts/test-sanitizers): any of these in kiln's log fails the test.
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "WARNING: AddressSanitizer")


def skip(reason):
    print(f"SKIP: {reason}")
    sys.exit(SKIP)


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print(f"ok: {message}")


def need(program):
    if shutil.which(program) is None:
        skip(f"{program} is not installed")


class Screenshot:
    """An RGB image from a binary PPM (grim -t ppm), indexed [y][x] -> (r, g, b)."""

    def __init__(self, width, height, pixels):
        self.width, self.height, self.pixels = width, height, pixels

    @classmethod
    def from_ppm(cls, data):
        # Header: P6 <w> <h> <maxval>, whitespace separated, then raw bytes.
        fields, pos = [], 0
        while len(fields) < 4:
            while data[pos:pos + 1].isspace():
                pos += 1
            if data[pos:pos + 1] == b"#":
                pos = data.index(b"\n", pos) + 1
                continue
            end = pos
            while not data[end:end + 1].isspace():
                end += 1
            fields.append(data[pos:end])
            pos = end
        if fields[0] != b"P6" or int(fields[3]) != 255:
            raise ValueError("not an 8-bit binary PPM")
        width, height = int(fields[1]), int(fields[2])
        return cls(width, height, data[pos + 1:pos + 1 + width * height * 3])

    def at(self, x, y):
        i = (y * self.width + x) * 3
        return tuple(self.pixels[i:i + 3])

    def count(self, color, tolerance=8, step=1):
        """How many pixels (sampled every `step` in both axes) are within `tolerance` of `color`."""
        r0, g0, b0 = color
        n = 0
        px = self.pixels
        for y in range(0, self.height, step):
            row = y * self.width * 3
            for x in range(0, self.width, step):
                i = row + x * 3
                if abs(px[i] - r0) <= tolerance and abs(px[i + 1] - g0) <= tolerance and abs(px[i + 2] - b0) <= tolerance:
                    n += 1
        return n

    def bounding_box(self, color, tolerance=8):
        """(x0, y0, x1, y1) of the pixels of `color`, or None."""
        r0, g0, b0 = color
        xs, ys = [], []
        px = self.pixels
        for y in range(self.height):
            row = y * self.width * 3
            for x in range(self.width):
                i = row + x * 3
                if abs(px[i] - r0) <= tolerance and abs(px[i + 1] - g0) <= tolerance and abs(px[i + 2] - b0) <= tolerance:
                    xs.append(x)
                    ys.append(y)
        if not xs:
            return None
        return min(xs), min(ys), max(xs) + 1, max(ys) + 1

    def spot(self, color, margin=4, step=4):
        """(x, y) of a pixel of `color` (within 8) whose square of 2 * margin + 1 pixels is all that colour, or None:
        a point surely on the one surface of that colour, wherever kiln placed it. `color`: (r, g, b) or an
        0xRRGGBB / 0xAARRGGBB number."""
        if isinstance(color, int):
            color = ((color >> 16) & 0xff, (color >> 8) & 0xff, color & 0xff)
        def near(x, y):
            r, g, b = self.at(x, y)
            return abs(r - color[0]) <= 8 and abs(g - color[1]) <= 8 and abs(b - color[2]) <= 8
        for y in range(margin, self.height - margin, step):
            for x in range(margin, self.width - margin, step):
                if near(x, y) and all(near(x + dx, y + dy) for dy in range(-margin, margin + 1)
                                      for dx in range(-margin, margin + 1)):
                    return x, y
        return None

    def distinct_colors(self, step=4):
        return {self.at(x, y) for y in range(0, self.height, step) for x in range(0, self.width, step)}


def build_dir():
    """The meson build dir: KILN_BUILD_DIR (set by meson.build) or ./build."""
    return Path(os.environ.get("KILN_BUILD_DIR", Path(__file__).resolve().parents[2] / "build"))


def kiln_binary():
    return str(build_dir() / "compositor" / "kiln")


def no_config_env(directory):
    """XDG config paths inside `directory`, where no kiln.ini is: the user's and the system's do not reach tests."""
    return {"XDG_CONFIG_HOME": str(Path(directory) / "config"), "XDG_CONFIG_DIRS": str(Path(directory) / "xdg")}


def private_env(directory, **extra):
    """The environment for a kiln run by hand: runtime files and caches in `directory` (a test's temporary
    directory, so they go with it), no outer display."""
    env = dict(os.environ, XDG_RUNTIME_DIR=str(directory), XDG_CACHE_HOME=str(Path(directory) / "cache"),
               XDG_STATE_HOME=str(Path(directory) / "state"), **no_config_env(directory))
    env.update(extra)
    env.pop("WAYLAND_DISPLAY", None)
    env.pop("DISPLAY", None)
    return env


def _accepts(path):
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def client_binary(name):
    return str(build_dir() / "clients" / name)


class Kiln:
    """A kiln process with its own XDG_RUNTIME_DIR and socket. Use as a context manager. `background`: the
    --background colour; black (0x000000) by default, so pixel tests read black where no window is, whatever kiln's
    own default; None leaves it to kiln.ini and kiln's default (tests of [background] itself)."""

    def __init__(self, *args, backend="headless", size="640x480", env=None, socket="wayland-kiln-test", stats=True,
                 runtime_dir=None, timeout=20, background="0x000000"):
        self.tmp = tempfile.mkdtemp(prefix="kiln-test-")
        os.chmod(self.tmp, 0o700)
        self.runtime = runtime_dir or self.tmp
        self.socket = socket
        self.stats_path = Path(self.tmp) / "stats.json" if stats else None
        self.log_path = Path(self.tmp) / "kiln.log"
        self.timeout = timeout * time_scale()
        self.env = dict(os.environ)
        self.env.pop("WAYLAND_DISPLAY", None)
        self.env["XDG_RUNTIME_DIR"] = self.runtime
        self.env["XDG_CACHE_HOME"] = str(Path(self.tmp) / "cache")
        self.env["XDG_STATE_HOME"] = str(Path(self.tmp) / "state")  # a start-up failure's log stays in the test
        self.env.update(no_config_env(self.tmp))
        if env:
            self.env.update(env)
        argv = [kiln_binary(), "--backend", backend, "--socket", socket]
        if backend == "headless" and size:  # size=None: kiln's default, or kiln.ini's [output] mode
            argv += ["--headless-size", size]
        if self.stats_path:
            argv += ["--stats", str(self.stats_path)]
        if background:
            argv += ["--background", background]
        self.argv = argv + list(args)
        self.proc = None
        self.log = None
        self.client_env = dict(self.env, WAYLAND_DISPLAY=socket)
        self.client_env.pop("DISPLAY", None)
        self.children = []

    def __enter__(self):
        # Python runs __exit__ only once __enter__ has returned: a kiln that fails to start is cleaned up here.
        try:
            self.log = open(self.log_path, "w")
            self.proc = subprocess.Popen(self.argv, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
            deadline = time.monotonic() + self.timeout
            sock = Path(self.runtime) / self.socket
            while not sock.exists():
                if self.proc.poll() is not None:
                    raise AssertionError(f"kiln exited with {self.proc.returncode} before opening its socket:\n"
                                         f"{self.logs()}")
                if time.monotonic() > deadline:
                    raise AssertionError(f"kiln did not open {sock} in {self.timeout}s:\n{self.logs()}")
                time.sleep(0.02)
            # The file exists from bind(), a moment before listen(): a client connecting then is refused.
            while not _accepts(sock):
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"kiln does not accept connections on {sock}:\n{self.logs()}")
                time.sleep(0.02)
        except BaseException:
            self._clean_up()
            raise
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            self._stop_processes()
        finally:
            report = self.sanitizer_report()
            if exc_type is not None or report:
                print(f"--- kiln log ({self.log_path}) ---\n{self.logs()}", file=sys.stderr)
            shutil.rmtree(self.tmp, ignore_errors=True)
        if report and exc_type is None:
            raise AssertionError(f"kiln's log holds a sanitizer report: {report}")
        return False

    def _stop_processes(self):
        for child in self.children:
            if child.poll() is None:
                child.kill()
                child.wait()
        if self.proc and self.proc.poll() is None:
            # SIGTERM first: a clean exit is where a sanitized kiln checks for leaks.
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15 * time_scale())
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.log:
            self.log.close()

    def _clean_up(self):
        """Kills what is still running and removes the temporary directory, whatever fails on the way."""
        try:
            for child in self.children:
                if child.poll() is None:
                    child.kill()
                    child.wait()
            if self.proc and self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            if self.log:
                self.log.close()
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def sanitizer_report(self):
        """The first line of an ASan/LSan/UBSan report in kiln's log, or None."""
        try:
            text = Path(self.log_path).read_text(errors="replace")
        except OSError:
            return None
        for line in text.splitlines():
            if any(marker in line for marker in SANITIZER_MARKERS):
                return line.strip()
        return None

    def logs(self):
        try:
            return Path(self.log_path).read_text(errors="replace")[-6000:]
        except OSError:
            return ""

    def alive(self):
        return self.proc.poll() is None

    def spawn(self, argv, env=None, **kwargs):
        """Starts a client in the background; it is killed when the test ends."""
        child = subprocess.Popen(argv, env=dict(self.client_env, **(env or {})), stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, **kwargs)
        self.children.append(child)
        return child

    def run(self, argv, timeout=30, env=None):
        """Runs a client to completion; returns the CompletedProcess (stdout+stderr in .stdout)."""
        return subprocess.run(argv, env=dict(self.client_env, **(env or {})), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout * time_scale(), text=True)

    def screenshot(self, output=None):
        """The whole layout, or with `output` that output alone (grim -o NAME), in its own pixels."""
        need("grim")
        where = ["-o", output] if output else []
        result = subprocess.run(["grim", "-t", "ppm", *where, "-"], env=self.client_env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, timeout=20 * time_scale())
        if result.returncode != 0:
            raise AssertionError(f"grim {' '.join(where)} failed: {result.stderr.decode(errors='replace')}")
        return Screenshot.from_ppm(result.stdout)

    def wait_for(self, predicate, what, timeout=10, interval=0.1):
        """Polls predicate() (typically on a screenshot) until it is true."""
        deadline = time.monotonic() + timeout * time_scale()
        last = None
        while time.monotonic() < deadline:
            last = predicate()
            if last:
                return last
            if not self.alive():
                raise AssertionError(f"kiln died while waiting for {what}:\n{self.logs()}")
            time.sleep(interval)
        raise AssertionError(f"timed out waiting for {what}")

    def placed(self, color, what, width=None, height=None):
        """Where kiln placed a window of `color` (0xRRGGBB or 0xAARRGGBB fill), found from pixels: waits until the
        colour is on screen (with `width` and `height`, as a box that size) and returns (screenshot, box (x0, y0,
        x1, y1)). Tests find their windows this way instead of assuming where placement puts them."""
        rgb_color = ((color >> 16) & 0xff, (color >> 8) & 0xff, color & 0xff)
        found = []

        def shown():
            shot = self.screenshot()
            box = shot.bounding_box(rgb_color, tolerance=0)
            found[:] = [shot, box]
            return box is not None and (width is None or box[2] - box[0] == width) and \
                (height is None or box[3] - box[1] == height)

        try:
            self.wait_for(shown, what, interval=0.05)
        except AssertionError:
            raise AssertionError(f"{what}: the colour {color:#x} is not on screen as expected ({found[1:]})")
        print(f"ok: {what}: {found[1]}")
        return found[0], found[1]

    def stop(self):
        """SIGTERM, then the exit status and stats (dict, or None without --stats)."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            status = self.proc.wait(15 * time_scale())
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError(f"kiln did not exit within {15 * time_scale():g} s of SIGTERM")
        stats = None
        if self.stats_path and self.stats_path.exists():
            stats = json.loads(self.stats_path.read_text())
        return status, stats


def wait_drawn(child, timeout=20):
    """Waits for a kiln demo client run with --stay to say it drew its frames."""
    deadline = time.monotonic() + timeout * time_scale()
    line = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([child.stdout], [], [], 0.2)
        if ready:
            line = child.stdout.readline()
            if b"drew" in line:
                return
            if not line:
                break
    raise AssertionError(f"client did not finish drawing ({line!r}, exit {child.poll()})")


def stat(stats, dotted):
    node = stats
    for part in dotted.split("."):
        node = node[part]
    return node


def rgb(hex_color):
    value = int(hex_color, 16)
    return (value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff


def run_test(fn):
    """Runs a test function, turning AssertionError into exit 1 with its message."""
    try:
        fn()
    except AssertionError as error:
        print(f"FAIL: {error}", file=sys.stderr)
        sys.exit(1)
    print("PASS")
