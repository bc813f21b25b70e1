#!/usr/bin/env python3
"""The clients suite: the programs people run every day, each against headless kiln (1280x720), checked as a user
would see them: a screenshot with the client's pixels where its window is (and its colour where that is known), or a
round trip done (clipboard, output changes, typed keys).

`clients.py NAME` runs one case (meson registers one test per case, so a client that is not installed skips alone);
`clients.py --list` prints the case names. Every case runs in a scratch directory (HOME and XDG dirs, kiln's
runtime dir) that goes with it, its clients are killed at its end, and a process left behind fails it.
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
from wayland_wire import Connection, Toplevel, shm_buffer  # noqa: E402
from decoration_pixels import ACTIVE, TITLE  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402

WIDTH, HEIGHT = 1280, 720
# kiln's background for these tests: a colour no client here draws much of, so "not background" means "client".
BACKGROUND = (0x12, 0x34, 0x56)
RED, GREEN, BLUE, MAGENTA, CYAN = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 0, 255), (0, 255, 255)
# Clients on llvmpipe (GTK 4, Qt, mpv) can take a while to show their first frame on a busy machine.
FIRST_FRAME_TIMEOUT = 60
HERE = Path(__file__).resolve().parent
MAXIMIZED = 1  # xdg_toplevel.state


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


# --- the cases ---------------------------------------------------------------------------------------------------

def foot(kiln, scratch):
    need_client("foot", "foot")
    config = Path(scratch) / "foot.ini"  # foot 1.13 ignores -o overrides when it has no configuration file
    config.write_text("[colors]\nbackground=00ffff\nforeground=0000ff\n")
    start(kiln, ["foot", "-c", str(config), "sh", "-c", "echo kiln clients; exec sleep 600"])
    shot, box, _ = drawn_window(kiln, "foot's window")
    cyan = color_box(shot, CYAN)
    check(cyan is not None and size_of(cyan)[0] > 200, f"foot's background is the cyan it was given ({cyan})")
    check(len([c for c in colors_in(shot, box, 1) if c[2] > 200 and c[0] < 60 and c[1] < 200]) > 0,
          "and its blue text is drawn")


def weston_terminal(kiln, scratch):
    need_client("weston-terminal", "weston")
    start(kiln, ["weston-terminal", "--shell=/bin/sh"])
    shot, box, _ = drawn_window(kiln, "weston-terminal's window, its frame and terminal", min_size=(200, 100),
                                min_colors=3)
    black = color_box(shot, (0, 0, 0), tolerance=0)
    check(black is not None and size_of(black)[0] > 300 and size_of(black)[1] > 150 and
          box[0] < black[0] and box[1] < black[1] and black[2] < box[2] and black[3] < box[3],
          f"its black terminal area sits inside its frame ({black} in {box})")


def gtk3_widget_factory(kiln, scratch):
    need_client("gtk3-widget-factory", "gtk-3-examples")
    start(kiln, ["gtk3-widget-factory"], env={"GDK_BACKEND": "wayland"})
    drawn_window(kiln, "gtk3-widget-factory's window of widgets", min_size=(400, 300), min_colors=30)


def gtk4_widget_factory(kiln, scratch):
    need_client("gtk4-widget-factory", "gtk-4-examples")
    start(kiln, ["gtk4-widget-factory"], env={"GDK_BACKEND": "wayland"})
    drawn_window(kiln, "gtk4-widget-factory's window of widgets", min_size=(400, 300), min_colors=30)


def qt_qml(kiln, scratch):
    need_client("qmlscene", "qmlscene")
    if not list(Path("/usr/lib").glob("*/qt5/qml/QtQuick.2/qmldir")):
        skip("the QML module QtQuick 2 is not installed (Debian package qml-module-qtquick2)")
    if not list(Path("/usr/lib").glob("*/qt5/plugins/platforms/libqwayland-*.so")):
        skip("Qt's Wayland platform plugin is not installed (Debian package qtwayland5)")
    start(kiln, ["qmlscene", str(HERE / "scene.qml")], env={"QT_QPA_PLATFORM": "wayland"})
    box = wait_color(kiln, MAGENTA, "the QML Rectangle's magenta", (280, 180), tolerance=4)
    # kiln leaves decorations to clients: Qt draws its title bar and border inside the 320x240 the scene asks for.
    check(size_of(box)[0] <= 320 and size_of(box)[1] <= 240,
          f"it fills the 320x240 window the QML file asks for, less Qt's own title bar ({size_of(box)})")
    shot = kiln.screenshot()
    check(any(near(c, (0, 0, 0), 40) for c in colors_in(shot, box, 1)), "with the black text drawn on it")


def glmark2(kiln, scratch):
    need_client("glmark2-es2-wayland", "glmark2-es2-wayland")
    run = start(kiln, ["glmark2-es2-wayland", "-s", "400x300", "-b", "build:duration=4"])
    drawn_window(kiln, "glmark2's window with the horse being drawn", min_size=(390, 290), min_colors=10)
    try:
        run.wait(timeout=120)
    except subprocess.TimeoutExpired:
        raise AssertionError("glmark2 did not finish its one benchmark in 120 s")
    text = run.log_path.read_text(errors="replace")
    score = re.search(r"glmark2 Score: (\d+)", text)
    check(run.returncode == 0 and score is not None and int(score.group(1)) > 0,
          f"glmark2 finishes and reports a score ({score.group(0) if score else text[-400:]})")


def mpv(kiln, scratch):
    need_client("mpv", "mpv")
    start(kiln, ["mpv", "--no-config", "--ao=null", "--osc=no", "--osd-level=0", "--title=kiln mpv",
                "av://lavfi:color=c=0xff0000:s=320x240:r=10"])
    box = wait_color(kiln, RED, "mpv playing a red lavfi video", (300, 220), tolerance=24)
    check(abs(size_of(box)[0] - 320) <= 4 and abs(size_of(box)[1] - 240) <= 4,
          f"mpv's window shows the 320x240 video ({size_of(box)})")


def imv(kiln, scratch):
    need_client("imv-wayland", "imv")
    image = Path(scratch) / "green.png"
    write_png(image, 160, 120, bytes(GREEN) * 160 * 120)
    start(kiln, ["imv-wayland", str(image)])
    box = wait_color(kiln, GREEN, "imv showing the green PNG", (150, 110), tolerance=4)
    check(True, f"the image is drawn in its colour, {size_of(box)[0]}x{size_of(box)[1]}")


def xterm(kiln, scratch):
    need_client("xterm", "xterm")
    need_client("Xwayland", "xwayland")
    display = x_display(kiln)
    start(kiln, ["xterm", "-geometry", "40x8+100+100", "-bg", "#00ffff", "-fg", "#0000ff",
                "-e", "sh", "-c", "echo kiln clients; exec sleep 600"], env={"DISPLAY": display})
    box = wait_color(kiln, CYAN, "xterm's cyan window through Xwayland", (150, 60))
    check(box[:2] == (100, 100), f"where its -geometry put it ({box})")
    shot = kiln.screenshot()
    check(BLUE in colors_in(shot, box, 1), "with its blue text drawn")
    kiln.wait_for(lambda: kiln.screenshot().at(box[0] + 2, box[1] - TITLE + 1) == ACTIVE, "kiln's title bar on xterm")
    check(True, "with kiln's title bar above it, in the focused colour (xterm draws no frame of its own)")


def swaybg(kiln, scratch):
    need_client("swaybg", "swaybg")
    start(kiln, ["swaybg", "-c", "#ff0000"])
    samples = (WIDTH // 16) * (HEIGHT // 16)
    kiln.wait_for(lambda: kiln.screenshot().count(RED, tolerance=0, step=16) == samples, "swaybg's red everywhere")
    check(True, f"swaybg -c '#ff0000': the whole {WIDTH}x{HEIGHT} output is red")


WAYBAR_CONFIG = '{"layer": "top", "position": "top", "height": 30, "modules-left": ["clock"], "modules-right": []}'
WAYBAR_STYLE = ("* { border: none; border-radius: 0; min-height: 0; font-size: 14px; } "
                "window#waybar { background-color: #00ff00; color: #000000; }")


def waybar(kiln, scratch):
    need_client("waybar", "waybar")
    config, style = Path(scratch) / "waybar.json", Path(scratch) / "waybar.css"
    config.write_text(WAYBAR_CONFIG)
    style.write_text(WAYBAR_STYLE)
    start(kiln, ["waybar", "-c", str(config), "-s", str(style)])
    wait_color(kiln, GREEN, "waybar's green strip", (WIDTH - 2, 28), tolerance=0)
    shot = kiln.screenshot()
    strip = rows_of(shot, GREEN, 0.9)
    check(strip == list(range(30)) and all(shot.at(x, y) == GREEN for x in (0, WIDTH - 1) for y in (0, 29)),
          f"waybar's strip runs along the top edge, edge to edge, 30 px high (rows {strip[:1]}..{strip[-1:]})")
    check(any(near(c, (0, 0, 0), 60) for c in colors_in(shot, (0, 0, 200, 30), 1)), "with its clock's text drawn")
    with Connection(kiln.client_env) as conn:
        window = Toplevel(conn, "maximized under waybar")
        conn.send(window.toplevel, 9)  # set_maximized, before the first commit (as foot --maximized does)
        window.commit()
        width, height = maximized_configure(conn, window)
        check((width, height) == (WIDTH, HEIGHT - 30),
              f"a maximized window is asked to fill the output less waybar's zone ({width}x{height})")
        buffer = shm_buffer(conn, width, height, 0xff0000ff)
        conn.send(window.surface, 1, ("o", buffer), ("i", 0), ("i", 0))  # attach
        conn.send(window.surface, 2, ("i", 0), ("i", 0), ("i", width), ("i", height))  # damage
        window.commit()
        conn.roundtrip()
        wait_color(kiln, BLUE, "the maximized window", (WIDTH - 2, HEIGHT - 32), tolerance=0)
        shot = kiln.screenshot()
        strip, window_rows = rows_of(shot, GREEN, 0.9), rows_of(shot, BLUE)
        check(strip == list(range(30)) and window_rows == list(range(30, HEIGHT)),
              f"the window fills the output right under the strip, which is still drawn over the top 30 rows "
              f"(window rows {window_rows[:1]}..{window_rows[-1:]}, {len(window_rows)} of them; strip rows "
              f"{strip[:1]}..{strip[-1:]})")


def maximized_configure(conn, window):
    """Acks configures until one says maximized (wlroots may answer set_maximized before the initial commit is
    read); returns its size."""
    while True:
        event = conn.dispatch_until(lambda e: e.obj == window.toplevel and e.opcode == 0)
        conn.events.remove(event)
        width, height, states = event.args("iia")
        window.wait_configure()
        if MAXIMIZED in struct.unpack(f"={len(states) // 4}I", states):
            return width, height


def clipboard(kiln, scratch):
    need_client("wl-copy", "wl-clipboard")
    text = "kiln clients ✓\nsecond line"
    copy = start(kiln, ["wl-copy", "--foreground"], stdin=subprocess.PIPE)
    copy.stdin.write(text.encode())
    copy.stdin.close()
    deadline = time.monotonic() + 20
    pasted = None
    while time.monotonic() < deadline:
        result = kiln.run(["wl-paste", "--no-newline"], timeout=10)
        pasted = result.stdout
        if result.returncode == 0 and pasted == text:
            break
        time.sleep(0.1)
    check(pasted == text, f"wl-copy, then wl-paste prints the same text ({pasted!r})")


def wlr_randr(kiln, scratch):
    need_client("wlr-randr", "wlr-randr")
    listing = randr_listing(kiln)
    check("HEADLESS-1" in listing and f"{WIDTH}x{HEIGHT} px" in listing,
          f"wlr-randr lists HEADLESS-1 at {WIDTH}x{HEIGHT}")
    result = kiln.run(["wlr-randr", "--output", "HEADLESS-1", "--custom-mode", "1024x768", "--scale", "2"])
    check(result.returncode == 0, f"wlr-randr --custom-mode 1024x768 --scale 2 succeeds ({result.stdout.strip()})")
    listing = randr_listing(kiln)
    check("1024x768 px" in listing and "Scale: 2.0" in listing, "and lists the new mode and scale")
    shot = kiln.wait_for(lambda: (s := kiln.screenshot()) and (s.width, s.height) == (1024, 768) and s,
                         "a 1024x768 screenshot")
    check(True, f"the output is drawn at its new size ({shot.width}x{shot.height})")


# kanshi 1.3 sets only modes an output lists, and a headless output lists just its current one: the profile turns
# and scales it instead.
KANSHI_CONFIG = """profile kiln-test {
    output HEADLESS-1 enable transform 90 scale 2 position 0,0
}
"""


def kanshi(kiln, scratch):
    need_client("kanshi", "kanshi")
    need_client("wlr-randr", "wlr-randr")
    config = Path(scratch) / "kanshi.conf"
    config.write_text(KANSHI_CONFIG)
    start(kiln, ["kanshi", "-c", str(config)])

    def applied():
        listing = randr_listing(kiln)
        return "Transform: 90" in listing and "Scale: 2.0" in listing
    kiln.wait_for(applied, "kanshi to apply its profile", timeout=20, interval=0.3)
    check(True, "kanshi applied the profile: wlr-randr lists HEADLESS-1 turned 90 degrees at scale 2")
    shot = kiln.wait_for(lambda: (s := kiln.screenshot()) and (s.width, s.height) == (HEIGHT, WIDTH) and s,
                         f"a {HEIGHT}x{WIDTH} screenshot")
    check(True, f"the output is drawn turned ({shot.width}x{shot.height})")


def wtype(kiln, scratch):
    need_client("wtype", "wtype")
    need_client("foot", "foot")
    typed = Path(scratch) / "typed"
    start(kiln, ["foot", "sh", "-c", 'IFS= read -r line; printf "%s" "$line" > "$0.part"; mv "$0.part" "$0"',
                str(typed)])
    drawn_window(kiln, "foot's window (focused when it maps)", min_colors=2)
    result = kiln.run(["wtype", "kiln typed this", "-k", "Return"])
    check(result.returncode == 0, f"wtype exits 0 ({result.stdout.strip()})")
    kiln.wait_for(typed.exists, "the line typed into foot", timeout=20)
    check(typed.read_text() == "kiln typed this", f"wtype's keys arrived in foot ({typed.read_text()!r})")

# A page that fills its window with a checkerboard of device pixels (canvas sized by devicePixelRatio) and puts the
# ratio and canvas size in its title.
CHECKERBOARD_PAGE = """<!doctype html><html><head><style>html,body{margin:0;overflow:hidden;background:#000}
canvas{display:block}</style></head><body><canvas id="c"></canvas><script>
function draw() {
  const d = devicePixelRatio, c = document.getElementById("c");
  const w = Math.round(innerWidth * d), h = Math.round(innerHeight * d);
  c.width = w; c.height = h; c.style.width = (w / d) + "px"; c.style.height = (h / d) + "px";
  const x = c.getContext("2d"), img = x.createImageData(w, h);
  for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) {
    const o = (j * w + i) * 4, red = ((i + j) & 1) == 0;
    img.data[o] = red ? 255 : 0; img.data[o + 2] = red ? 0 : 255; img.data[o + 3] = 255;
  }
  x.putImageData(img, 0, 0);
  document.title = "dpr " + d + " " + w + "x" + h;
}
draw(); addEventListener("resize", draw);
</script></body></html>"""


def checkerboard_rows(shot):
    """Rows of the screenshot holding a run of >= 100 pure red/blue pixels: (y, x0, x1, exact), exact when every pixel of
    the run is pure red or blue and each differs from its right neighbour (a 1-px checkerboard, unblurred)."""
    red, blue = bytes(RED), bytes(BLUE)
    out = []
    for y in range(shot.height):
        row = shot.pixels[y * shot.width * 3:(y + 1) * shot.width * 3]
        xs = [x for x in range(0, shot.width, 4) if row[x * 3:x * 3 + 3] in (red, blue)]
        if len(xs) < 25:
            continue
        x0, x1 = xs[0], xs[-1]
        while x0 > 0 and row[(x0 - 1) * 3:x0 * 3] in (red, blue):
            x0 -= 1
        while x1 + 1 < shot.width and row[(x1 + 1) * 3:(x1 + 2) * 3] in (red, blue):
            x1 += 1
        exact = all(row[x * 3:x * 3 + 3] in (red, blue) and row[x * 3:x * 3 + 3] != row[(x + 1) * 3:(x + 2) * 3]
                    for x in range(x0, x1))
        out.append((y, x0, x1 + 1, exact))
    return out


def chromium(kiln, scratch):
    """At output scale 1.5 (this case's kiln.ini): Chromium binds wp_fractional_scale_manager_v1, is told 180, draws
    its 600x400 window into a 900x600 buffer (1.5x its window geometry, from WAYLAND_DEBUG), and a page of device-pixel
    checkerboard is exact in the screenshot; over the page, it sets its cursor through wp_cursor_shape_v1."""
    need_client("chromium", "chromium")
    page = Path(scratch) / "checkerboard.html"
    page.write_text(CHECKERBOARD_PAGE)
    child = start(kiln, ["chromium", "--ozone-platform=wayland", "--no-sandbox", "--disable-gpu",
                         f"--user-data-dir={scratch}/chromium", "--no-first-run", "--no-default-browser-check",
                         "--disable-extensions", "--window-size=600,400", f"--app=file://{page}"],
                  env={"WAYLAND_DEBUG": "1"})

    kiln.wait_for(lambda: 'title("dpr ' in child.log_path.read_text(errors="replace"), "Chromium's page drawn",
                  timeout=FIRST_FRAME_TIMEOUT)
    rows = kiln.wait_for(lambda: (r := checkerboard_rows(kiln.screenshot())) and len(r) >= 300 and r,
                         "the page's checkerboard on screen", timeout=20)
    log = child.log_path.read_text(errors="replace")
    check("wp_fractional_scale_manager_v1#" in log and ".preferred_scale(180)" in log,
          "Chromium binds wp_fractional_scale_manager_v1 and is told 180/120 (WAYLAND_DEBUG)")
    binds = re.findall(r'bind\(\d+, "xdg_wm_base", (\d+),', log)
    # Chromium 156 asks for at most version 6 (its helper process binds version 1): at wlroots' 2 it got 2.
    check(binds and max(int(v) for v in binds) >= 6,
          f"Chromium binds xdg_wm_base at version {max(int(v) for v in binds) if binds else None} {binds} "
          f"(WAYLAND_DEBUG)")
    geometry = re.findall(r"set_window_geometry\(\d+, \d+, (\d+), (\d+)\)", log)
    buffers = re.findall(r"create_buffer\(new id wl_buffer#\d+, \d+, (\d+), (\d+), \d+, \d+\)", log)
    check(geometry and buffers, f"its window geometry and buffers are in its log ({geometry[-1:]}, {buffers})")
    gw, gh = map(int, geometry[-1])
    bw, bh = max(((int(w), int(h)) for w, h in buffers), key=lambda b: b[0] * b[1])  # the window's, not a cursor's
    check((bw, bh) == (round(gw * 1.5), round(gh * 1.5)),
          f"its buffer is 1.5x its window geometry: {bw}x{bh} for {gw}x{gh}")
    widths = {x1 - x0 for _, x0, x1, _ in rows}
    check(all(exact for *_, exact in rows) and max(widths) == bw,
          f"the page's device-pixel checkerboard is exact on screen, {max(widths)} pixels wide, in all {len(rows)} "
          f"rows ({sum(1 for *_, e in rows if not e)} blurred)")
    check(re.search(r"title\(\"dpr 1\.5 ", log), "the page sees devicePixelRatio 1.5")

    with Connection(kiln.client_env) as conn:
        mover = VirtualPointer(conn, (1280, 720))  # the output's logical size
        y, x0, x1, _ = rows[len(rows) // 2]
        mover.move(round((x0 + x1) / 3), round(y / 1.5))
        kiln.wait_for(lambda: "wp_cursor_shape_device_v1#" in child.log_path.read_text(errors="replace") and
                      ".set_shape(" in child.log_path.read_text(errors="replace"), "Chromium's cursor shape")
        check(True, "over its page Chromium sets its cursor with wp_cursor_shape_device_v1.set_shape")


def firefox(kiln, scratch):
    """At output scale 1.5: Firefox ESR (kiosk, Wayland) binds wp_fractional_scale_manager_v1, is told 180, the page
    sees devicePixelRatio 1.5 and its device-pixel checkerboard is exact on screen."""
    need_client("firefox-esr", "firefox-esr")
    page = Path(scratch) / "checkerboard.html"
    page.write_text(CHECKERBOARD_PAGE)
    profile = Path(scratch) / "firefox"
    profile.mkdir()
    child = start(kiln, ["firefox-esr", "--no-remote", "--profile", str(profile), "--kiosk", f"file://{page}"],
                  env={"WAYLAND_DEBUG": "1", "MOZ_ENABLE_WAYLAND": "1"})
    kiln.wait_for(lambda: 'title("dpr ' in child.log_path.read_text(errors="replace"), "Firefox's page drawn",
                  timeout=FIRST_FRAME_TIMEOUT)
    rows = kiln.wait_for(lambda: (r := checkerboard_rows(kiln.screenshot())) and len(r) >= 300 and r,
                         "the page's checkerboard on screen", timeout=30)
    log = child.log_path.read_text(errors="replace")
    check("wp_fractional_scale_manager_v1#" in log and ".preferred_scale(180)" in log,
          "Firefox binds wp_fractional_scale_manager_v1 and is told 180/120 (WAYLAND_DEBUG)")
    binds = re.findall(r'bind\(\d+, "xdg_wm_base", (\d+),', log)
    check(binds and max(int(v) for v in binds) >= 6,
          f"Firefox binds xdg_wm_base at version {max(int(v) for v in binds) if binds else None} {binds} "
          f"(WAYLAND_DEBUG)")
    check(re.search(r'title\("dpr 1\.5 ', log), "the page sees devicePixelRatio 1.5")
    check(all(exact for *_, exact in rows),
          f"the page's device-pixel checkerboard is exact on screen in all {len(rows)} rows "
          f"({sum(1 for *_, e in rows if not e)} blurred), {max(x1 - x0 for _, x0, x1, _ in rows)} pixels wide")


CASES = {f.__name__: f for f in (foot, weston_terminal, gtk3_widget_factory, gtk4_widget_factory, qt_qml, glmark2,
                                 mpv, imv, xterm, swaybg, waybar, clipboard, wlr_randr, kanshi, wtype,
                                 chromium, firefox)}
# kiln.ini lines a case needs beyond the background, and its output's size where it is not WIDTHxHEIGHT: at scale 1.5
# the output is 1920x1080, a whole 1280x720 in logical pixels (grim composes its screenshot in logical pixels times
# the scale, so a fractional logical size would make grim itself resample the picture).
CASE_CONFIG = {"chromium": "[output HEADLESS-1]\nscale=1.5\n", "firefox": "[output HEADLESS-1]\nscale=1.5\n"}
CASE_SIZE = {"chromium": "1920x1080", "firefox": "1920x1080"}


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


def run_case(name):
    case = CASES[name]
    need("grim")
    scratch = tempfile.mkdtemp(prefix=f"kiln-clients-{name}-")
    marker = f"KILN_CLIENTS_CASE={scratch}"
    try:
        home = Path(scratch) / "home"
        home.mkdir()
        config = Path(scratch) / "kiln.ini"
        config.write_text("[background]\ncolor=0x%02x%02x%02x\n" % BACKGROUND + CASE_CONFIG.get(name, ""))
        # The user's HOME, config, data and session bus stay out of reach: no client writes there, and none starts
        # a D-Bus daemon (the address names a socket that does not exist, so nothing is autolaunched).
        env = {"HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "KILN_CLIENTS_CASE": scratch,
               "DBUS_SESSION_BUS_ADDRESS": f"unix:path={scratch}/no-bus", "NO_AT_BRIDGE": "1",
               "GTK_A11Y": "none"}
        start = time.monotonic()
        with Kiln("--config", str(config), size=CASE_SIZE.get(name, f"{WIDTH}x{HEIGHT}"), env=env, timeout=30) as kiln:
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


def main():
    if len(sys.argv) != 2 or (sys.argv[1] not in CASES and sys.argv[1] != "--list"):
        print(f"usage: clients.py NAME|--list  (NAME: {', '.join(CASES)})", file=sys.stderr)
        sys.exit(2)
    if sys.argv[1] == "--list":
        print("\n".join(CASES))
        return
    run_test(lambda: run_case(sys.argv[1]))


if __name__ == "__main__":
    main()
