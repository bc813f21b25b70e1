#!/usr/bin/env python3
"""The shared output changes its mode while the stream is read, on the stack of screencast.py: headless kiln at
320x240 shares HEADLESS-1; wlr-randr (wlr-output-management) sets 400x300, then 256x192. Each time kiln-portal
offers the stream again at the new size: a libpipewire consumer connected throughout agrees on the new format and
takes frames of it, a pipewiresrc started on the same node gets frames of that size equal to grim pixel for pixel,
and the session does not end."""
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import build_dir, check, client_binary, need, run_test, skip, wait_drawn  # noqa: E402
from screencast import ScreenCastClient, Stack, StreamReader, differing, portal_kiln, require_stack  # noqa: E402

SIZE = (320, 240)
MODES = [(400, 300), (256, 192)]


def main():
    portal_binary = require_stack()
    need("wlr-randr")
    if not (build_dir() / "tests" / "portal" / "kiln-portal-hostile-consumer").exists():
        skip("kiln-portal-hostile-consumer was not built (needs libpipewire-0.3-dev)")
    with Stack() as stack:
        with portal_kiln(stack, f"{portal_binary} --replace", size=SIZE) as kiln:
            still = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "200x150", "--color", "3366cc",
                                "--frames", "3", "--stay"])
            wait_drawn(still)
            client = ScreenCastClient(stack.env["DBUS_SESSION_BUS_ADDRESS"])
            client.wait_for_portal()
            response, session, streams = client.share()
            check(response == 0 and len(streams) == 1, f"Start answers {response} with one stream: {streams}")
            node = streams[0][0]
            # The consumer connected across each change: libpipewire, as browsers' capturers use it. GStreamer's
            # pipewiresrc of PipeWire 1.4 fails a renegotiation itself ("unhandled format", fixed upstream in
            # 1.5.82), and a second consumer on a node gets no buffers: pipewiresrc reads the pixels after it.
            def start_consumer():
                fd = client.remote(session)
                child = subprocess.Popen([str(build_dir() / "tests" / "portal" / "kiln-portal-hostile-consumer"),
                                          str(fd), str(node), "60", "stream"], pass_fds=(fd,), env=stack.env,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                os.close(fd)
                lines = []
                threading.Thread(target=lambda: lines.extend(child.stdout), daemon=True).start()
                return child, lines

            def frames_at(lines, mode):
                """Buffers the consumer took since it agreed on `mode`."""
                text = "".join(lines)
                at = text.rfind(f"format {mode[0]} {mode[1]}\n")
                return 0 if at < 0 else text[at:].count("frames ")

            previous = SIZE
            for mode in MODES:
                consumer, lines = start_consumer()
                kiln.wait_for(lambda: frames_at(lines, previous) >= 1, f"the consumer takes {previous} frames",
                              timeout=20)
                result = kiln.run(["wlr-randr", "--output", "HEADLESS-1", "--custom-mode", f"{mode[0]}x{mode[1]}"])
                check(result.returncode == 0, f"wlr-randr sets {mode} ({result.stdout.strip()})")
                kiln.wait_for(lambda: frames_at(lines, mode) >= 1, f"the stream renegotiated to {mode} and the "
                              f"consumer takes frames of that size ({''.join(lines)[-300:]})", timeout=20)
                check(consumer.poll() is None, f"the consumer is still connected at {mode}")
                consumer.kill()
                consumer.wait()
                time.sleep(0.3)
                reader = StreamReader(client.remote(session), node)
                frame = reader.frame()
                check(frame is not None and (frame.width, frame.height) == mode,
                      f"pipewiresrc on the same node gets frames of {mode}")
                while (newer := reader.frame(timeout=1.5)) is not None:
                    frame = newer  # the last one counts: one from just before may come first
                reader.stop()
                shot = kiln.screenshot()
                diff = differing(frame, shot) if (frame.width, frame.height) == (shot.width, shot.height) else -1
                check(diff == 0, f"at {mode} the stream equals grim ({diff} pixels differ; grim is "
                      f"{shot.width}x{shot.height})")
                previous = mode
            check("kiln-portal: session" not in kiln.logs(), "the session did not end")
            client.close(session)


if __name__ == "__main__":
    run_test(main)
