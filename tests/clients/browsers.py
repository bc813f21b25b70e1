#!/usr/bin/env python3
"""The clients suite's browsers on headless kiln at output scale 1.5: Chromium and Firefox ESR bind fractional scale,
draw a device-pixel checkerboard exact on screen, and Chromium sets its cursor shape (clients_harness.py runs them)."""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from clients_harness import BLUE, FIRST_FRAME_TIMEOUT, RED, check, Connection, main, need_client, start  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402


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


def page_at_scale(kiln, child, name, timeout):
    """Waits for the checkerboard page of `child` (a browser run with WAYLAND_DEBUG) on screen at scale 1.5 and checks
    what both browsers must show: fractional scale bound and told 180, xdg_wm_base at version >= 6, devicePixelRatio
    1.5. Returns the page's screen rows (checkerboard_rows) and the client's log."""
    kiln.wait_for(lambda: 'title("dpr ' in child.log_path.read_text(errors="replace"), f"{name}'s page drawn",
                  timeout=FIRST_FRAME_TIMEOUT)
    rows = kiln.wait_for(lambda: (r := checkerboard_rows(kiln.screenshot())) and len(r) >= 300 and r,
                         "the page's checkerboard on screen", timeout=timeout)
    log = child.log_path.read_text(errors="replace")
    check("wp_fractional_scale_manager_v1#" in log and ".preferred_scale(180)" in log,
          f"{name} binds wp_fractional_scale_manager_v1 and is told 180/120 (WAYLAND_DEBUG)")
    binds = re.findall(r'bind\(\d+, "xdg_wm_base", (\d+),', log)
    check(binds and max(int(v) for v in binds) >= 6,
          f"{name} binds xdg_wm_base at version {max(int(v) for v in binds) if binds else None} {binds} "
          f"(WAYLAND_DEBUG)")
    check(re.search(r'title\("dpr 1\.5 ', log), "the page sees devicePixelRatio 1.5")
    return rows, log


def chromium(kiln, scratch):
    """At output scale 1.5 (this case's kiln.ini): Chromium binds wp_fractional_scale_manager_v1, is told 180, draws
    its 600x400 window into a 900x600 buffer (1.5x its window geometry, from WAYLAND_DEBUG), and a page of device-pixel
    checkerboard is exact in the screenshot; over the page, it sets its cursor through wp_cursor_shape_v1. It binds
    xdg_toplevel_drag_manager_v1, for dragging tabs out."""
    need_client("chromium", "chromium")
    page = Path(scratch) / "checkerboard.html"
    page.write_text(CHECKERBOARD_PAGE)
    child = start(kiln, ["chromium", "--ozone-platform=wayland", "--no-sandbox", "--disable-gpu",
                         f"--user-data-dir={scratch}/chromium", "--no-first-run", "--no-default-browser-check",
                         "--disable-extensions", "--window-size=600,400", f"--app=file://{page}"],
                  env={"WAYLAND_DEBUG": "1"})

    # Chromium 156 asks for at most version 6 (its helper process binds version 1): at wlroots' 2 it got 2.
    rows, log = page_at_scale(kiln, child, "Chromium", timeout=20)
    # Chromium drags a tab out into a window of its own through xdg-toplevel-drag where the compositor offers it.
    drag_binds = re.findall(r'bind\(\d+, "xdg_toplevel_drag_manager_v1", (\d+),', log)
    check(drag_binds, f"Chromium binds xdg_toplevel_drag_manager_v1 (versions {drag_binds}, WAYLAND_DEBUG)")
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
    rows, _ = page_at_scale(kiln, child, "Firefox", timeout=30)
    check(all(exact for *_, exact in rows),
          f"the page's device-pixel checkerboard is exact on screen in all {len(rows)} rows "
          f"({sum(1 for *_, e in rows if not e)} blurred), {max(x1 - x0 for _, x0, x1, _ in rows)} pixels wide")


CASES = {f.__name__: f for f in (chromium, firefox)}

# kiln.ini lines a case needs beyond the background, and its output's size where it is not WIDTHxHEIGHT: at scale 1.5
# the output is 1920x1080, a whole 1280x720 in logical pixels (grim composes its screenshot in logical pixels times
# the scale, so a fractional logical size would make grim itself resample the picture).
CASE_CONFIG = {"chromium": "[output HEADLESS-1]\nscale=1.5\n", "firefox": "[output HEADLESS-1]\nscale=1.5\n"}
CASE_SIZE = {"chromium": "1920x1080", "firefox": "1920x1080"}


if __name__ == "__main__":
    main(CASES, CASE_CONFIG, CASE_SIZE)
