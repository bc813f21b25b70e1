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
import shutil
import signal
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kiln_harness import run_test, skip  # noqa: E402
from screencast import Stack, portal_kiln, require_stack  # noqa: E402
from browser_share import PAGE, SIZE, TOLERANCE, WINDOW, check_share, waiter  # noqa: E402  (the same page)
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

def main():
    portal_binary = require_stack()
    firefox = shutil.which("firefox-esr")
    if firefox is None:
        skip("firefox-esr is not installed (Debian package firefox-esr)")
    with Stack() as stack:
        with portal_kiln(stack, f"{portal_binary} --replace", size=SIZE) as kiln:
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

                seen = waiter(log_path, browser, firefox_says, timeout=90)

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
                check_share(kiln, seen)
            finally:
                if browser.poll() is None:
                    os.killpg(browser.pid, signal.SIGKILL)
                browser.wait()


if __name__ == "__main__":
    run_test(main)
