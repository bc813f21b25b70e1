#!/usr/bin/env python3
"""A capture costs what changed: while a full-screen 1920x1080 `kiln-demo-shm` slides its 48 px square (each commit
damages ~56x48 px), a client takes 40 frames through ext-image-copy-capture into one shm buffer, of the output in one
kiln and of the window alone in another. Over each run kiln copies into textures no more client bytes than the
frames' reported damage holds (plus the window once), and makes GL storage for client memory at most twice, not once
per captured frame.

Before, on llvmpipe (where kiln composes shm windows on the CPU, reading them where they lie), each capture drew the
scene with GL: every commit's buffer got a new 1920x1080 GL texture (llvmpipe clears it) and was uploaded whole,
~8 MB a frame (bench/share_cost.py's perf profile, doc/benchmarks.md)."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from capture_sources import output_source, toplevel_source  # noqa: E402
from kiln_harness import Kiln, check, client_binary, run_test, stat  # noqa: E402
from wayland_wire import ARGB8888, Connection, MappedShmBuffer  # noqa: E402

FRAMES = 40
WIDTH, HEIGHT = 1920, 1080
COLOR = (0x33, 0x66, 0xcc)
# ext-image-copy-capture: session events, frame events
BUFFER_SIZE, SESSION_DONE, STOPPED = 0, 4, 5
DAMAGE, READY, FAILED = 1, 3, 4


def capture(conn, source):
    """FRAMES frames of `source` into one buffer; the damaged area each frame reported (pixels), in order."""
    manager = conn.bind("ext_image_copy_capture_manager_v1", 1)
    session = conn.create("ext_image_copy_capture_session_v1", manager, 0, ("o", source), ("u", 0))
    conn.dispatch_until(lambda e: e.obj == session and e.opcode in (SESSION_DONE, STOPPED))
    events = conn.take(session)
    check(all(e.opcode != STOPPED for e in events), "the session is not stopped")
    size = next(tuple(e.args("uu")) for e in events if e.opcode == BUFFER_SIZE)
    check(size == (WIDTH, HEIGHT), f"the capture buffers are {WIDTH}x{HEIGHT} ({size})")
    buffer = MappedShmBuffer(conn, *size, ARGB8888, "kiln-capture-upload")
    areas = []
    for index in range(FRAMES):
        frame = conn.create("ext_image_copy_capture_frame_v1", session, 0)
        conn.send(frame, 1, ("o", buffer.obj))  # attach_buffer
        conn.send(frame, 3)                      # capture
        end = conn.dispatch_until(lambda e, f=frame: e.obj == f and e.opcode in (READY, FAILED), timeout=10)
        events = conn.take(frame)
        conn.send(frame, 0)  # destroy
        if end.opcode != READY:
            raise AssertionError(f"frame {index} failed ({end.args('u')})")
        areas.append(sum(w * h for _, _, w, h in (e.args("iiii") for e in events if e.opcode == DAMAGE)))
    conn.send(session, 1)  # destroy
    conn.roundtrip()
    return areas


def captures_cost_what_changed(what, make_source):
    with Kiln(size=f"{WIDTH}x{HEIGHT}") as kiln:
        kiln.spawn([client_binary("kiln-demo-shm"), "--fullscreen", "--color", "%02x%02x%02x" % COLOR])
        kiln.wait_for(lambda: kiln.screenshot().count(COLOR, 0, step=16) > (WIDTH // 16) * (HEIGHT // 16) // 2,
                      "the demo's full-screen window")
        time.sleep(0.3)
        with Connection(kiln.client_env) as conn:
            areas = capture(conn, make_source(conn))
        status, stats = kiln.stop()
        check(status == 0, f"kiln exits 0 (status {status})")
    uploaded = stat(stats, "buffers.shm_upload_bytes")
    gl_textures = stat(stats, "buffers.shm_gl_textures")
    changed = 4 * sum(areas[1:])
    print(f"{what}: {FRAMES} captures: damage reported {areas[0]} px, then {sum(areas[1:])} px in all "
          f"({changed} bytes); uploaded {uploaded} bytes; GL storage for client memory made {gl_textures} times; "
          f"read back {stat(stats, 'buffers.readback_bytes')} bytes")
    check(areas[0] == WIDTH * HEIGHT, f"{what}: the first frame is damaged whole ({areas[0]} px)")
    check(0 < sum(areas[1:]) < FRAMES * WIDTH * HEIGHT // 20,
          f"{what}: later frames report the square's path, not the screen ({sum(areas[1:])} px in {FRAMES - 1} "
          f"frames)")
    check(uploaded <= changed + 4 * WIDTH * HEIGHT,
          f"{what}: kiln copied {uploaded} client bytes for {FRAMES} captures: no more than what changed "
          f"({changed}) and the window once ({4 * WIDTH * HEIGHT})")
    check(gl_textures <= 2, f"{what}: GL storage for client memory was made {gl_textures} times in {FRAMES} "
          f"captures, not once per frame")


def main():
    captures_cost_what_changed("output source", output_source)
    captures_cost_what_changed("window source", lambda conn: toplevel_source(conn, "kiln-demo-shm"))


if __name__ == "__main__":
    run_test(main)
