#!/usr/bin/env python3
"""A window source through the portal (SelectSources types=2): the same stack as screencast.py, with two windows
of kiln-demo-shm (red first, then blue, the newest and so the focused one, which kiln-portal shares by default):
- the portal offers window sources (AvailableSourceTypes has 2); Start answers one stream of source_type 2 with the
  window's size;
- every pixel of every frame is the blue window's: its colour and its sliding white square (seen moving: the frames
  are fresh), nothing of the red window or the background;
- with the red window raised over it (`kiln msg focus`), and with it dragged by its title bar (server-side
  decorations) to another place, the stream is unchanged;
- with the window closed mid-stream the session ends (the frontend emits Session.Closed), and kiln and kiln-portal
  go on: grim still reads the screen and a monitor source still starts."""
import subprocess
import sys
import time
import json
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from virtual_input import VirtualPointer  # noqa: E402
from wayland_wire import Connection  # noqa: E402
from kiln_harness import check, client_binary, kiln_binary, run_test, wait_drawn  # noqa: E402
from screencast import ScreenCastClient, Stack, StreamReader, portal_kiln, require_stack  # noqa: E402

SIZE = (640, 480)
RED, BLUE, WHITE = (0xcc, 0x33, 0x33), (0x33, 0x66, 0xcc), (255, 255, 255)


def msg(kiln, *args):
    result = subprocess.run([kiln_binary(), "msg", *args], env=kiln.client_env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, timeout=20)
    check(result.returncode == 0, f"kiln msg {' '.join(args)} succeeds ({result.stderr.strip()})")
    return json.loads(result.stdout)


def share_window(client, cursor_mode=1):
    """CreateSession, SelectSources (a window), Start: (response, session, streams)."""
    response, results = client.request("CreateSession", options={"session_handle_token": f"s{client.tokens}"})
    check(response == 0, f"CreateSession answers {response}")
    session = results["session_handle"]
    response, _ = client.request("SelectSources", session,
                                 options={"types": client.dbus.UInt32(2), "multiple": False,
                                          "cursor_mode": client.dbus.UInt32(cursor_mode)})
    check(response == 0, f"SelectSources (window) answers {response}")
    response, results = client.request("Start", session, "")
    return response, session, [(int(node), dict(props)) for node, props in results.get("streams", [])]


def foreign_pixels(frame):
    """What in a frame is not the blue window's (blue, or its white 48x48 square): a description, or ''."""
    colours = {}
    for i in range(0, len(frame.pixels), 3):
        pixel = tuple(frame.pixels[i:i + 3])
        colours[pixel] = colours.get(pixel, 0) + 1
    others = {c: n for c, n in colours.items() if c not in (BLUE, WHITE)}
    if not others and colours.get(WHITE, 0) == 48 * 48:
        return ""
    return f"{colours.get(BLUE, 0)} blue, {colours.get(WHITE, 0)} white, others {dict(list(others.items())[:4])}"


def only_window(frame, what):
    wrong = foreign_pixels(frame)
    check(not wrong, f"{what}: the stream holds only the blue window's pixels {wrong}")


def watch(reader, what, frames=20):
    """Reads `frames` frames: each only the blue window's; the square seen at several places (fresh frames)."""
    places = set()
    for i in range(frames):
        frame = reader.frame(timeout=2)
        if frame is None:
            raise AssertionError(f"{what}: no frame in 2 s ({i} so far)")
        wrong = foreign_pixels(frame)
        if wrong:
            raise AssertionError(f"{what}: frame {i} holds more than the blue window: {wrong}")
        places.add(frame.bounding_box(WHITE, tolerance=0))
    check(len(places) >= 3, f"{what}: {frames} frames show the square at {len(places)} places (fresh frames)")


def main():
    portal_binary = require_stack()
    with Stack() as stack:
        config = Path(stack.dir) / "kiln.ini"
        config.write_text("[decorations]\nmode=server\n")
        with portal_kiln(stack, f"{portal_binary} --replace", "--config", str(config), size=SIZE) as kiln:
            red = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "240x180", "--color", "cc3333",
                              "--frames", "3", "--stay"])
            wait_drawn(red)
            # Animated (its white square slides): the stream gets new frames while it is covered or moved.
            blue = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "200x150", "--color", "3366cc",
                               "--server-decoration"])
            shot, blue_box = kiln.placed(0x3366cc, "the blue window", width=200, height=150)
            windows = msg(kiln, "windows")["windows"]
            by_size = {(w["width"], w["height"]): w for w in windows}
            check((240, 180) in by_size and (200, 150) in by_size, f"kiln lists both windows: {windows}")
            red_id, blue_id = by_size[(240, 180)]["id"], by_size[(200, 150)]["id"]

            client = ScreenCastClient(stack.env["DBUS_SESSION_BUS_ADDRESS"])
            types, _ = client.wait_for_portal()
            check(types & 2, f"the portal offers window sources (AvailableSourceTypes {types})")
            response, session, streams = share_window(client)
            check(response == 0 and len(streams) == 1, f"Start answers {response} with one stream: {streams}")
            node, props = streams[0]
            check(int(props.get("source_type", 0)) == 2 and tuple(props.get("size", ())) == (200, 150),
                  f"the stream is a window (source_type 2) of the window's size: {props}")
            closed = []
            client.bus.add_signal_receiver(lambda *a: closed.append(session), "Closed",
                                           "org.freedesktop.portal.Session", "org.freedesktop.portal.Desktop",
                                           session)
            reader = StreamReader(client.remote(session), node)
            frame = reader.frame()
            check(frame is not None and (frame.width, frame.height) == (200, 150),
                  f"pipewiresrc receives 200x150 frames from node {node}")
            only_window(frame, "the window shown")
            watch(reader, "the window shown")

            # The red window raised over the blue one: grim sees it covered, the stream does not.
            msg(kiln, "focus", str(red_id))
            covered = kiln.wait_for(lambda: (lambda s: s if s.count(RED, tolerance=0) == 240 * 180 - 48 * 48 else None)(
                kiln.screenshot()), "the red window on top of the blue one")
            print(f"ok: on screen {covered.count(BLUE, tolerance=4)} of {200 * 150} blue pixels are left")
            watch(reader, "with the window covered")
            # Raised again and dragged by its title bar (kiln draws it: [decorations] mode=server) to another place.
            msg(kiln, "focus", str(blue_id))
            kiln.wait_for(lambda: kiln.screenshot().count(RED, tolerance=0) < 240 * 180 - 48 * 48, "the blue window on top again")
            pointer = VirtualPointer(Connection(kiln.client_env), SIZE)
            title = ((blue_box[0] + blue_box[2]) // 2, blue_box[1] - 12)
            pointer.drag(title, (title[0] - 200, title[1] - 150))
            _, moved = kiln.placed(0x3366cc, "the blue window, moved", width=200, height=150)
            check(moved[:2] != blue_box[:2], f"the drag moved the window from {blue_box[:2]} to {moved[:2]}")
            watch(reader, "with the window moved")

            # The window closes mid-stream: the session ends, nobody else is harmed.
            blue.kill()
            blue.wait()
            loop = client.GLib.MainLoop()
            client.GLib.timeout_add(100, lambda: (loop.quit() if closed else True))
            client.GLib.timeout_add_seconds(10, loop.quit)
            loop.run()
            check(closed, "with the window closed the frontend ends the session (Session.Closed)")
            check("the window closed" in kiln.logs(), "kiln-portal says why the session ended")
            reader.stop()
            check(kiln.alive(), "kiln is still running")
            shot = kiln.screenshot()
            check(shot.count(RED, tolerance=0) > 0, "grim still reads the screen, the red window on it")
            response, _, streams = client.share()
            check(response == 0 and len(streams) == 1, "kiln-portal still shares the screen afterwards")


if __name__ == "__main__":
    run_test(main)
