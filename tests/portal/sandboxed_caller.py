#!/usr/bin/env python3
"""An application inside a sandbox, for tests/portal/sandboxed_share.py: run under bwrap with a synthetic read-only
/.flatpak-info, it asks org.freedesktop.portal.ScreenCast (and Screenshot's PickColor and Screenshot) on the session
bus as any application does (no app id is passed: xdg-desktop-portal finds it), and prints what it got, one
`key value` line each, for the test outside to judge:
  sandboxed_caller.py ADDRESS screencast FRAME_FILE  CreateSession/SelectSources/Start answers; when Start gives a
      stream: the frames pipewiresrc delivered in 2 s while the test animates a window, then (after the test writes a
      line on stdin, the screen now still) one frame written to FRAME_FILE as `WIDTH HEIGHT\\n` and RGB rows.
  sandboxed_caller.py ADDRESS pickcolor    PickColor's answer and colour.
  sandboxed_caller.py ADDRESS screenshot   Screenshot's (interactive false) answer and whether a uri came."""
import sys
import time
from pathlib import Path

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

Gst.init(None)
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from screencast import ScreenCastClient, StreamReader  # noqa: E402


def say(key, value):
    print(key, value, flush=True)


def screencast(client, frame_file):
    response, results = client.request("CreateSession", options={"session_handle_token": "sandboxed"})
    say("create-session", response)
    if response != 0:
        return
    session = results["session_handle"]
    response, _ = client.request("SelectSources", session, options={"types": client.dbus.UInt32(1),
                                                                    "cursor_mode": client.dbus.UInt32(1)})
    say("select-sources", response)
    if response != 0:
        return
    response, results = client.request("Start", session, "")
    streams = [int(node) for node, _ in results.get("streams", [])]
    say("start", response)
    say("streams", ",".join(map(str, streams)) or "none")
    if response != 0 or not streams:
        return
    reader = StreamReader(client.remote(session), streams[0])
    if reader.frame(timeout=10) is None:
        say("frames", "none")
        return
    started, delivered = time.monotonic(), reader.delivered
    time.sleep(2)
    say("rate", f"{(reader.delivered - delivered) / (time.monotonic() - started):.1f}")
    sys.stdin.readline()  # the test stopped the animation
    time.sleep(0.3)
    frame = None
    for _ in range(3):  # the newest of a few: the first may still show the last animated frame
        frame = reader.frame(timeout=1) or frame
    if frame is None:
        say("frames", "none after the screen went still")
        return
    Path(frame_file).write_bytes(f"{frame.width} {frame.height}\n".encode() + frame.pixels)
    say("frame", frame_file)
    reader.stop()


def main():
    address, action = sys.argv[1], sys.argv[2]
    say("flatpak-info", Path("/.flatpak-info").exists())
    client = ScreenCastClient(address)
    client.wait_for_portal()
    if action == "screencast":
        screencast(client, sys.argv[3])
        return
    proxy = client.bus.get_object("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop")
    client.portal = client.dbus.Interface(proxy, "org.freedesktop.portal.Screenshot")
    if action == "pickcolor":
        response, results = client.request("PickColor", "")
        say("pickcolor", response)
        say("color", ",".join(str(round(float(c) * 255)) for c in results.get("color", ())) or "none")
    else:
        response, results = client.request("Screenshot", "", options={"interactive": False})
        say("screenshot", response)
        say("uri", bool(results.get("uri")))


if __name__ == "__main__":
    main()
