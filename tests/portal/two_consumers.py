#!/usr/bin/env python3
"""Two consumers on one stream, on the stack of screencast.py (kiln with kiln-portal, xdg-desktop-portal, PipeWire,
WirePlumber): one session, two GStreamer pipewiresrc on its node (each through its own OpenPipeWireRemote).
PipeWire links both to the node's one output port; the second link takes the buffers the first negotiated, and the
port's tee hands every buffer kiln-portal queues to each link.
- the second consumer joins on a still screen (kiln sends no frame until something changes) and gets the frame at
  once, equal to grim's, while the first is connected; kiln-portal sees the new link and sends the frame it holds;
- while a window animates at 60 Hz both consumers get every frame: each delivers the same number of frames, within
  5% (a buffer split between them would give each half), and at least MIN_RATE frames/s;
- on a still screen again, both frames equal grim's; when the second leaves, the first goes on.
Skips (77) where the portal stack is not installed."""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check, client_binary, run_test, wait_drawn  # noqa: E402
from screencast import ScreenCastClient, Stack, StreamReader, differing, portal_kiln, require_stack  # noqa: E402

SIZE = (320, 240)
# Most of the 60 Hz animation: 56-57 frames/s each here when the machine is quiet, 49 under a load of 13.
MIN_RATE = 40


def newest(reader, tries=3):
    frame = None
    for _ in range(tries):
        frame = reader.frame(timeout=1) or frame
    return frame


def main():
    portal_binary = require_stack()
    with Stack() as stack:
        with portal_kiln(stack, f"{portal_binary} --replace", size=SIZE) as kiln:
            still = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "200x150", "--color", "3366cc",
                                "--frames", "3", "--stay"])
            wait_drawn(still)
            client = ScreenCastClient(stack.env["DBUS_SESSION_BUS_ADDRESS"])
            client.wait_for_portal()
            response, session, streams = client.share()
            check(response == 0 and len(streams) == 1, f"Start answers {response} with one stream")
            node = streams[0][0]
            first = StreamReader(client.remote(session), node)
            frame = first.frame()
            shot = kiln.screenshot()
            check(frame is not None and differing(frame, shot) == 0, "the first consumer gets the screen as grim")

            second = StreamReader(client.remote(session), node)
            frame = second.frame(timeout=3)
            check(frame is not None, f"a second consumer on node {node} gets a frame of the still screen in 3 s")
            diff = differing(frame, shot)
            check(diff == 0, f"the second consumer's frame equals grim's ({diff} pixels differ)")
            check("a consumer joined" in kiln.logs(), "kiln-portal saw the second link")

            moving = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "100x60", "--color", "00aa00"])
            time.sleep(0.5)
            started, a, b = time.monotonic(), first.delivered, second.delivered
            time.sleep(3)
            elapsed = time.monotonic() - started
            a, b = first.delivered - a, second.delivered - b
            check(a / elapsed >= MIN_RATE and b / elapsed >= MIN_RATE and abs(a - b) <= max(3, a // 20),
                  f"both consumers get every frame: {a / elapsed:.1f} and {b / elapsed:.1f} frames/s ({a} and {b} "
                  f"frames in {elapsed:.1f} s)")
            moving.kill()
            moving.wait()
            time.sleep(0.3)
            shot = kiln.screenshot()
            for name, reader in (("first", first), ("second", second)):
                frame = newest(reader)
                diff = differing(frame, shot) if frame else -1
                check(diff == 0, f"on a still screen again the {name} consumer's frame equals grim's ({diff} differ)")

            second.stop()
            moving = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "100x60", "--color", "00aa00"])
            time.sleep(0.5)
            started, a = time.monotonic(), first.delivered
            time.sleep(2)
            rate = (first.delivered - a) / (time.monotonic() - started)
            check(rate >= MIN_RATE, f"after the second consumer left the first gets {rate:.1f} frames/s (alone)")
            check(kiln.alive(), "kiln runs")
            first.stop()
            moving.kill()
            moving.wait()


if __name__ == "__main__":
    run_test(main)
