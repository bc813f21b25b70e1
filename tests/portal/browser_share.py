#!/usr/bin/env python3
"""A browser shares kiln's screen the way a video call asks for it: Chromium (Wayland, headless kiln) opens a local
page that calls navigator.mediaDevices.getDisplayMedia({video: true}) by itself; Chromium's PipeWire capturer asks
xdg-desktop-portal's ScreenCast, which kiln-portal answers without a dialog, and the page plays the stream in a
<video>, draws it into a <canvas> and prints (console.log, on Chromium's stderr) how many frames arrived and where
and in what colour it sees a window of a distinctive colour, opened once the share runs. The test wants frames at the
output's size, kiln-portal's log saying it shares the output, and the window where grim shows it, in its colour
(within what Chromium's YUV conversion changes).
Skips (77) where Chromium or the portal stack (tests/portal/screencast.py's require_stack) is missing."""
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check, client_binary, run_test, skip, wait_drawn  # noqa: E402
from screencast import Stack, portal_kiln, require_stack  # noqa: E402

SIZE = (1024, 640)
WINDOW = (0xcc, 0x33, 0x99)
# Chromium turns the captured BGRx frames into I420 and back for the canvas: a flat colour comes back a few steps off.
TOLERANCE = 12
FRAMES = 10  # new frames the page must count once the window is up

# The page: getDisplayMedia at load (the fake media UI accepts without a gesture), the stream in a <video> (all but
# transparent, so that its picture of the screen does not show the coloured window a second time), each new
# frame counted (requestVideoFrameCallback) and twice a second one drawn into a canvas, where the page finds the box
# of pixels near the colour named in its URL and reads the colour at the box's centre.
PAGE = """<!doctype html><html><head><style>html,body{margin:0;background:#000;overflow:hidden}
video{width:240px;opacity:0.05}</style></head><body><video id="v" muted autoplay></video><canvas id="c" hidden></canvas><script>
const want = new URLSearchParams(location.search).get("colour").match(/../g).map(h => parseInt(h, 16));
const say = text => { console.log("kiln-share: " + text); document.title = text; };
function look(ctx, w, h) {
  const d = ctx.getImageData(0, 0, w, h).data;
  let x0 = w, y0 = h, x1 = -1, y1 = -1;
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const o = (y * w + x) * 4;
    if (Math.abs(d[o] - want[0]) <= TOLERANCE && Math.abs(d[o + 1] - want[1]) <= TOLERANCE &&
        Math.abs(d[o + 2] - want[2]) <= TOLERANCE) {
      x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
    }
  }
  if (x1 < 0) return "box none rgb none";
  const o = (((y0 + y1) >> 1) * w + ((x0 + x1) >> 1)) * 4;
  return "box " + x0 + "," + y0 + "," + (x1 + 1) + "," + (y1 + 1) + " rgb " + d[o] + "," + d[o + 1] + "," + d[o + 2];
}
async function share() {
  let stream;
  try {
    stream = await navigator.mediaDevices.getDisplayMedia({video: true});
  } catch (e) {
    say("error " + e.name + ": " + e.message);
    return;
  }
  const v = document.getElementById("v"), c = document.getElementById("c");
  const ctx = c.getContext("2d", {willReadFrequently: true});
  let frames = 0;
  const counted = () => { frames++; v.requestVideoFrameCallback(counted); };
  v.requestVideoFrameCallback(counted);
  v.srcObject = stream;
  setInterval(() => {
    const w = v.videoWidth, h = v.videoHeight;
    if (!w) return say("frames " + frames + " no size yet");
    c.width = w; c.height = h; ctx.drawImage(v, 0, 0);
    say("frames " + frames + " size " + w + "x" + h + " " + look(ctx, w, h));
  }, 500);
}
share();
</script></body></html>"""

# The page's console line; Chromium quotes it in its log, Firefox prints it bare.
REPORT = re.compile(r"kiln-share: frames (\d+) size (\d+)x(\d+) box (none|\d+,\d+,\d+,\d+) rgb (none|\d+,\d+,\d+)")


def reports(log_path):
    """The page's reports so far: (frames, (width, height), box or None, colour or None)."""
    out = []
    for frames, w, h, box, rgb in REPORT.findall(log_path.read_text(errors="replace")):
        out.append((int(frames), (int(w), int(h)), None if box == "none" else tuple(map(int, box.split(","))),
                    None if rgb == "none" else tuple(map(int, rgb.split(",")))))
    return out


def waiter(log_path, browser, last_words, timeout):
    """seen(predicate, what): the page's newest report once `predicate` holds for it; fails with the browser's last
    words when the page reports an error, the browser exits, or `timeout` seconds pass."""
    def seen(predicate, what):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = reports(log_path)
            if got and predicate(got[-1]):
                return got[-1]
            if "kiln-share: error" in log_path.read_text(errors="replace") or browser.poll() is not None:
                break
            time.sleep(0.5)
        raise AssertionError(f"{what}; the browser's last words:\n{last_words()}")
    return seen


def check_share(kiln, seen):
    """What both browsers' tests check once the page shares: frames of the output's size arrive through kiln-portal,
    and a window of a distinctive colour opened after the share started is seen where grim shows it, in its colour."""
    first = seen(lambda r: r[0] > 0, "the page receives frames from getDisplayMedia")
    check(True, f"the page receives frames through the portal ({first[0]} so far)")
    check(first[1] == SIZE, f"the frames are the output's size: {first[1]}")
    check("kiln-portal: sharing HEADLESS-1" in kiln.logs(), "kiln-portal's log says it shares the output")

    window = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "200x150", "--color",
                         "%02x%02x%02x" % WINDOW, "--frames", "3", "--stay"])
    wait_drawn(window)
    box = kiln.wait_for(lambda: kiln.screenshot().bounding_box(WINDOW, tolerance=0),
                        "the coloured window on screen (grim)")
    later = seen(lambda r: r[2] is not None and r[0] > first[0] + FRAMES,
                 f"the page sees the coloured window (grim: {box})")
    frames, _, seen_box, colour = later
    check(frames > first[0] + FRAMES, f"the page counted {frames} frames in all")
    # The browsers' video paths (I420) blur colour edges by a pixel or two.
    check(all(abs(a - b) <= 2 for a, b in zip(seen_box, box)),
          f"the page sees the window at {seen_box}, grim at {box}")
    check(all(abs(a - b) <= TOLERANCE for a, b in zip(colour, WINDOW)),
          f"the page sees the window's colour {WINDOW}: {colour}")


def main():
    portal_binary = require_stack()
    chromium = shutil.which("chromium")
    if chromium is None:
        skip("chromium is not installed (Debian package chromium)")
    with Stack() as stack:
        with portal_kiln(stack, f"{portal_binary} --replace", size=SIZE) as kiln:
            page = Path(stack.dir) / "share.html"
            page.write_text(PAGE.replace("TOLERANCE", str(TOLERANCE)))
            home = Path(stack.dir) / "home"
            home.mkdir()
            log_path = Path(stack.dir) / "chromium.log"
            # XDG_SESSION_TYPE=wayland is what makes WebRTC pick its PipeWire capturer (without it Chromium tries
            # X11 and fails with "Unable to open display"); the fake media UI accepts getDisplayMedia without a
            # picker and asks for the whole screen, which the portal hands to kiln-portal.
            argv = [chromium, "--ozone-platform=wayland", "--no-sandbox", "--disable-gpu",
                    f"--user-data-dir={stack.dir}/chromium", "--no-first-run", "--no-default-browser-check",
                    "--disable-extensions", "--password-store=basic", "--window-size=400,300",
                    "--enable-logging=stderr", "--v=0", "--enable-features=WebRTCPipeWireCapturer",
                    "--use-fake-ui-for-media-stream", f"--app=file://{page}?colour=%02x%02x%02x" % WINDOW]
            with open(log_path, "wb") as log:
                browser = subprocess.Popen(argv, env=dict(kiln.client_env, HOME=str(home), XDG_SESSION_TYPE="wayland"),
                                           stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            try:
                def chromium_says():
                    text = log_path.read_text(errors="replace")
                    lines = [line for line in text.splitlines() if "kiln-share" in line or "screencast" in line or
                             "desktop_capture" in line or "shared_x_display" in line]
                    return "\n".join(lines[-12:])

                check_share(kiln, waiter(log_path, browser, chromium_says, timeout=60))
            finally:
                if browser.poll() is None:
                    os.killpg(browser.pid, signal.SIGKILL)
                browser.wait()


if __name__ == "__main__":
    run_test(main)
