#!/usr/bin/env python3
"""Firefox ESR shares kiln's screen the way a video call asks for it, on the stack browser_share.py runs Chromium on:
Firefox (Wayland, kiosk, a profile whose user.js lets media requests through without a prompt and prints the page's
console on stdout) opens browser_share.py's page, whose getDisplayMedia({video: true}) goes through Firefox's PipeWire
capturer to xdg-desktop-portal's ScreenCast and kiln-portal once a click (a virtual pointer) gives it the user
gesture Firefox asks for; the page plays the stream, counts its frames and says
where and in what colour it sees a window of a distinctive colour opened once the share runs. The test wants frames
at the output's size, kiln-portal's log saying it shares the output, and the window where grim shows it, in its
colour (within what the video path changes).
Skips (77) where Firefox ESR or the portal stack (tests/portal/screencast.py's require_stack) is missing."""
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kiln_harness import Kiln, check, client_binary, run_test, skip, wait_drawn  # noqa: E402
from screencast import Stack, require_stack, xdp_command  # noqa: E402
from browser_share import FRAMES, PAGE, SIZE, TOLERANCE, WINDOW  # noqa: E402  (the same page and window)
from virtual_input import VirtualPointer  # noqa: E402
from wayland_wire import Connection  # noqa: E402

# Firefox wants getDisplayMedia called in a user gesture (transient activation; no pref lifts it): the page shares on
# the first click instead of at load, and says when it is ready for one.
CLICK_PAGE = PAGE.replace("share();\n</script>",
                          "addEventListener('click', share, {once: true});\n"
                          "console.log('kiln-share: waiting for a click');\n</script>")

# What Firefox needs to share without a person there: no permission prompt (media.navigator.permission.disabled
# also answers getDisplayMedia's picker with the first source, which on Wayland is the portal's), screen sharing and
# the PipeWire capturer on (set rather than relied on as defaults), and the page's console.log on stdout, where the
# test reads the page's reports.
USER_JS = """user_pref("media.navigator.permission.disabled", true);
user_pref("media.getusermedia.screensharing.enabled", true);
user_pref("media.webrtc.capture.allow-pipewire", true);
user_pref("devtools.console.stdout.content", true);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
"""

REPORT = re.compile(r"kiln-share: frames (\d+) size (\d+)x(\d+) box (none|\d+,\d+,\d+,\d+) rgb (none|\d+,\d+,\d+)")


def reports(log_path):
    """The page's reports so far: (frames, (width, height), box or None, colour or None)."""
    out = []
    for frames, w, h, box, rgb in REPORT.findall(log_path.read_text(errors="replace")):
        out.append((int(frames), (int(w), int(h)), None if box == "none" else tuple(map(int, box.split(","))),
                    None if rgb == "none" else tuple(map(int, rgb.split(",")))))
    return out


def main():
    portal_binary = require_stack()
    firefox = shutil.which("firefox-esr")
    if firefox is None:
        skip("firefox-esr is not installed (Debian package firefox-esr)")
    source_portals = Path(__file__).resolve().parents[2] / "portal"
    with Stack() as stack:
        portals_dir = Path(stack.dir) / "portals"
        portals_dir.mkdir()
        shutil.copy(source_portals / "kiln.portal", portals_dir / "kiln.portal")
        kiln_env = {k: v for k, v in stack.env.items() if k.startswith(("DBUS_", "PIPEWIRE_"))}
        with Kiln("--restrict", "image-copy-capture", "-s", f"{portal_binary} --replace", "-s",
                  xdp_command(portals_dir), size=f"{SIZE[0]}x{SIZE[1]}", env=kiln_env, runtime_dir=stack.dir,
                  socket="wayland-firefox-share") as kiln:
            page = Path(stack.dir) / "share.html"
            page.write_text(CLICK_PAGE.replace("TOLERANCE", str(TOLERANCE)))
            home = Path(stack.dir) / "home"
            home.mkdir()
            profile = Path(stack.dir) / "firefox"
            profile.mkdir()
            (profile / "user.js").write_text(USER_JS)
            log_path = Path(stack.dir) / "firefox.log"
            argv = [firefox, "--no-remote", "--profile", str(profile),
                    f"file://{page}?colour=%02x%02x%02x" % WINDOW]
            # XDG_SESSION_TYPE=wayland and MOZ_ENABLE_WAYLAND=1: Firefox on Wayland, capturing through PipeWire.
            env = dict(kiln.client_env, HOME=str(home), XDG_SESSION_TYPE="wayland", MOZ_ENABLE_WAYLAND="1")
            with open(log_path, "wb") as log:
                browser = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT,
                                           start_new_session=True)
            try:
                def firefox_says():
                    lines = log_path.read_text(errors="replace").splitlines()
                    return "\n".join(lines[-15:])

                def seen(predicate, what, timeout=90):
                    deadline = time.monotonic() + timeout
                    while time.monotonic() < deadline:
                        got = reports(log_path)
                        if got and predicate(got[-1]):
                            return got[-1]
                        if "kiln-share: error" in log_path.read_text(errors="replace") or browser.poll() is not None:
                            break
                        time.sleep(0.5)
                    raise AssertionError(f"{what}; Firefox's last words:\n{firefox_says()}")

                kiln.wait_for(lambda: "kiln-share: waiting for a click" in log_path.read_text(errors="replace"),
                              "Firefox's page loaded (its console on stdout)", timeout=60)
                with Connection(kiln.client_env) as conn:
                    # On the page, away from the middle where the coloured window will open: the cursor is in the
                    # shared picture and would sit on the window's centre, where the page reads its colour.
                    pointer = VirtualPointer(conn, SIZE)
                    pointer.move(SIZE[0] // 5, SIZE[1] * 4 // 5)
                    pointer.button(True)
                    pointer.button(False)
                    pointer.destroy()
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
                check(all(abs(a - b) <= 2 for a, b in zip(seen_box, box)),
                      f"the page sees the window at {seen_box}, grim at {box}")
                check(all(abs(a - b) <= TOLERANCE for a, b in zip(colour, WINDOW)),
                      f"the page sees the window's colour {WINDOW}: {colour}")
            finally:
                if browser.poll() is None:
                    os.killpg(browser.pid, signal.SIGKILL)
                browser.wait()


if __name__ == "__main__":
    run_test(main)
