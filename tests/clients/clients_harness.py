#!/usr/bin/env python3
"""What every case of the clients suite shares: starting a client with its output in a log, reading the screen
(client pixels against kiln's background, colour boxes, rows), and running one case in a scratch directory against
headless kiln (1280x720).

The suite checks the programs people run every day as a user would see them: a screenshot with the client's pixels
where its window is (and its colour where that is known), or a round trip done (clipboard, output changes, typed
keys). Its cases live in one file per client family (terminals.py, toolkits.py, media.py, desktop_shell.py,
tools.py, browsers.py); `FAMILY.py NAME` runs one case (meson registers one test per case, so a client that is not
installed skips alone) and `FAMILY.py --list` prints the file's case names. Every case runs in a scratch directory
(HOME and XDG dirs, kiln's runtime dir) that goes with it, its clients are killed at its end, and a process left
behind fails it.
"""
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test, skip  # noqa: E402
from wayland_wire import Connection  # noqa: E402

WIDTH, HEIGHT = 1280, 720
# kiln's background for these tests: a colour no client here draws much of, so "not background" means "client".
BACKGROUND = (0x12, 0x34, 0x56)
RED, GREEN, BLUE, MAGENTA, CYAN = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 0, 255), (0, 255, 255)
# Clients on llvmpipe (GTK 4, Qt, mpv) can take a while to show their first frame on a busy machine.
FIRST_FRAME_TIMEOUT = 60


def start(kiln, argv, env=None, stdin=None):
    """Starts a client in its own session (so its children can be killed with it), its output in a log file of the
    case's directory (a chatty client never blocks on a full pipe); kiln's harness kills it at the end."""
    log_path = Path(kiln.client_env["KILN_CLIENTS_CASE"]) / f"{Path(argv[0]).name}-{len(kiln.children)}.log"
    with open(log_path, "wb") as log:
        child = subprocess.Popen(argv, env=dict(kiln.client_env, **(env or {})), stdin=stdin, stdout=log,
                                 stderr=subprocess.STDOUT, start_new_session=True)
    child.log_path = log_path
    kiln.children.append(child)
    return child


def client_logs(kiln):
    """The tail of each client's output, for a failing case."""
    text = ""
    for child in kiln.children:
        log = getattr(child, "log_path", None)
        if log and log.exists():
            text += f"--- {log.name} (exit {child.poll()}) ---\n{log.read_text(errors='replace')[-1500:]}\n"
    return text


def need_client(program, package):
    if shutil.which(program) is None:
        skip(f"{program} not installed (Debian package {package})")


# --- what is on screen -------------------------------------------------------------------------------------------

def client_box(shot):
    """The bounding box (x0, y0, x1, y1) of every pixel that is not kiln's background, or None.

    Rows compare as whole byte strings, and each row's ends are found by bisecting on prefix equality, so a 1280x720
    screenshot takes milliseconds in plain Python."""
    stride = shot.width * 3
    background = bytes(BACKGROUND) * shot.width
    px = shot.pixels
    x0, x1, y0, y1 = shot.width, 0, None, None
    for y in range(shot.height):
        row = px[y * stride:(y + 1) * stride]
        if row == background:
            continue
        if y0 is None:
            y0 = y
        y1 = y + 1
        lo, hi = 0, stride  # the longest prefix equal to the background
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if row[:mid] == background[:mid]:
                lo = mid
            else:
                hi = mid - 1
        x0 = min(x0, lo // 3)
        lo, hi = 0, stride  # the longest suffix equal to the background
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if row[stride - mid:] == background[stride - mid:]:
                lo = mid
            else:
                hi = mid - 1
        x1 = max(x1, (stride - lo + 2) // 3)
    return None if y0 is None else (x0, y0, x1, y1)


def colors_in(shot, box, step=2):
    x0, y0, x1, y1 = box
    return {shot.at(x, y) for y in range(y0, y1, step) for x in range(x0, x1, step)}


def near(a, b, tolerance):
    return all(abs(p - q) <= tolerance for p, q in zip(a, b))


def color_box(shot, color, tolerance=8, step=2):
    """The bounding box of the pixels near `color`, sampled every `step` pixels (so exact to `step`), or None."""
    xs, ys = [], []
    for y in range(0, shot.height, step):
        for x in range(0, shot.width, step):
            if near(shot.at(x, y), color, tolerance):
                xs.append(x)
                ys.append(y)
    return (min(xs), min(ys), max(xs) + 1, max(ys) + 1) if xs else None


def rows_of(shot, color, share=1.0):
    """The rows (y) of which at least `share` of the pixels are `color` (1.0: from edge to edge)."""
    stride = shot.width * 3
    px = shot.pixels
    if share >= 1.0:
        full = bytes(color) * shot.width
        return [y for y in range(shot.height) if px[y * stride:(y + 1) * stride] == full]
    pattern, samples = bytes(color), range(0, stride, 6)  # every other pixel
    return [y for y in range(shot.height)
            if sum(px[y * stride + i:y * stride + i + 3] == pattern for i in samples) >= share * len(samples)]


def size_of(box):
    return box[2] - box[0], box[3] - box[1]


def drawn_window(kiln, what, min_size=(100, 60), min_colors=3, timeout=FIRST_FRAME_TIMEOUT, inside=None):
    """Waits until a screenshot holds a window-sized area of client pixels with at least `min_colors` colours (its
    contents drawn, not a blank rectangle); returns (screenshot, box, colour count)."""
    def seen():
        shot = kiln.screenshot()
        box = client_box(shot)
        if box is None or size_of(box)[0] < min_size[0] or size_of(box)[1] < min_size[1]:
            return None
        colors = len(colors_in(shot, box))
        return (shot, box, colors) if colors >= min_colors else None
    shot, box, colors = kiln.wait_for(seen, what, timeout=timeout, interval=0.2)
    check(True, f"{what}: {size_of(box)[0]}x{size_of(box)[1]} at ({box[0]}, {box[1]}), {colors} colours")
    return shot, box, colors


def wait_color(kiln, color, what, min_size, tolerance=8, timeout=FIRST_FRAME_TIMEOUT):
    """Waits until an area of `color` at least `min_size` is on screen; returns its box."""
    def seen():
        box = color_box(kiln.screenshot(), color, tolerance)
        return box if box and all(s >= m for s, m in zip(size_of(box), min_size)) else None
    box = kiln.wait_for(seen, what, timeout=timeout, interval=0.2)
    check(True, f"{what}: {size_of(box)[0]}x{size_of(box)[1]} at ({box[0]}, {box[1]})")
    return box


def write_png(path, width, height, pixels):
    """Writes RGB bytes as a PNG (standard library only)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    stride = width * 3
    rows = b"".join(b"\0" + pixels[y * stride:(y + 1) * stride] for y in range(height))
    Path(path).write_bytes(b"\x89PNG\r\n\x1a\n" +
                           chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
                           chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def keep_screenshot(kiln, name):
    """With KILN_CLIENTS_SCREENSHOTS=DIR set, the screen as the case leaves it goes to DIR/NAME.png."""
    directory = os.environ.get("KILN_CLIENTS_SCREENSHOTS")
    if directory and kiln.alive():
        try:
            shot = kiln.screenshot()
            write_png(Path(directory) / f"{name}.png", shot.width, shot.height, shot.pixels)
            print(f"screenshot kept in {directory}/{name}.png", file=sys.stderr)
        except (AssertionError, OSError, subprocess.SubprocessError) as error:
            print(f"no screenshot kept: {error}", file=sys.stderr)


def randr_listing(kiln):
    result = kiln.run(["wlr-randr"])
    check(result.returncode == 0, f"wlr-randr lists the outputs (exit {result.returncode})")
    return result.stdout


def x_display(kiln):
    found = kiln.wait_for(lambda: re.search(r"DISPLAY=(:\d+)", kiln.logs()), "kiln to announce its X display")
    return found.group(1)


# --- running one case --------------------------------------------------------------------------------------------

def processes_with(marker):
    """Pids of the processes whose environment holds `marker` (all started for this case inherit it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if marker.encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def leftovers(marker):
    """Processes of the case still alive a few seconds after kiln went (Xwayland takes a moment); killed."""
    deadline = time.monotonic() + 5
    while (pids := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    names = []
    for pid in pids:
        try:
            names.append(Path(f"/proc/{pid}/comm").read_text().strip())
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return names


def run_case(name, case, case_config="", size=f"{WIDTH}x{HEIGHT}"):
    """Runs `case` (a function of kiln and the scratch directory) as NAME, with `case_config` added to its kiln.ini
    and an output of `size`."""
    need("grim")
    scratch = tempfile.mkdtemp(prefix=f"kiln-clients-{name}-")
    marker = f"KILN_CLIENTS_CASE={scratch}"
    try:
        home = Path(scratch) / "home"
        home.mkdir()
        config = Path(scratch) / "kiln.ini"
        config.write_text("[background]\ncolor=0x%02x%02x%02x\n" % BACKGROUND + case_config)
        # The user's HOME, config, data and session bus stay out of reach: no client writes there, and none starts
        # a D-Bus daemon (the address names a socket that does not exist, so nothing is autolaunched).
        env = {"HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "KILN_CLIENTS_CASE": scratch,
               "DBUS_SESSION_BUS_ADDRESS": f"unix:path={scratch}/no-bus", "NO_AT_BRIDGE": "1",
               "GTK_A11Y": "none"}
        start = time.monotonic()
        # background=None: the background is kiln.ini's BACKGROUND above, not the harness's black.
        with Kiln("--config", str(config), size=size, env=env, timeout=30, background=None) as kiln:
            with Connection(kiln.client_env) as conn:  # kiln listens (its socket exists a moment before)
                conn.roundtrip()
            try:
                case(kiln, scratch)
                check(kiln.alive(), f"kiln is still running after {name}")
            except BaseException:
                print(client_logs(kiln), file=sys.stderr)
                raise
            finally:
                keep_screenshot(kiln, name)
                for child in kiln.children:  # each client in its own session: its children go with it
                    if child.poll() is None:
                        try:
                            os.killpg(child.pid, signal.SIGKILL)
                        except OSError:
                            pass
        left = leftovers(marker)
        check(left == [], f"no process of the case is left once kiln has gone ({left})")
        print(f"{name}: {time.monotonic() - start:.1f} s")
    finally:
        leftovers(marker)
        shutil.rmtree(scratch, ignore_errors=True)


def main(cases, case_config=None, case_size=None):
    """Runs the case sys.argv[1] names among `cases` (its name: function), with the kiln.ini lines and output size
    `case_config` and `case_size` give for it, or lists the names with --list."""
    case_config, case_size = case_config or {}, case_size or {}
    if len(sys.argv) != 2 or (sys.argv[1] not in cases and sys.argv[1] != "--list"):
        print(f"usage: {Path(sys.argv[0]).name} NAME|--list  (NAME: {', '.join(cases)})", file=sys.stderr)
        sys.exit(2)
    if sys.argv[1] == "--list":
        print("\n".join(cases))
        return
    name = sys.argv[1]
    run_test(lambda: run_case(name, cases[name], case_config.get(name, ""), case_size.get(name, f"{WIDTH}x{HEIGHT}")))
