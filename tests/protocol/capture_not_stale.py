#!/usr/bin/env python3
"""Capture is never stale: while `kiln-demo-shm --stamp` slides its square 8 px a frame, a client takes 300 frames
of its output through ext-image-copy-capture, 300 of its window through ext-image-copy-capture, and 300 of the output
through wlr-screencopy's copy_with_damage. It keeps its own image and copies into it only the damage each frame
reports (the capture buffer is filled with a sentinel before every frame, so a pixel reported but not drawn shows
too). Every image it then holds must be one whole frame of the demo: the 8x8 stamp names a frame, the square is whole
exactly where that frame drew it, and nothing else in the window differs. 0 torn frames of 300, per source.

Before kiln counted the scene's damage not on screen yet, a frame copied the current scene only inside the last
output frame's damage: most ext-image-copy-capture frames showed the square cut off or missing."""
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from capture_sources import toplevel_source  # noqa: E402
from kiln_harness import Kiln, check, client_binary, run_test  # noqa: E402
from wayland_wire import ARGB8888, XRGB8888, Connection, MappedShmBuffer  # noqa: E402

FRAMES = 300
SQUARE, STEP, STAMP = 48, 8, 8  # as clients/demo_shm.cpp draws them
WHITE = 0xffffffff
SENTINEL = 0xff0a0b0c
# ext-image-copy-capture: session events, frame events
BUFFER_SIZE, SHM_FORMAT, SESSION_DONE, STOPPED = 0, 1, 4, 5
DAMAGE, READY, FAILED = 1, 3, 4
# wlr-screencopy frame events
SC_BUFFER, SC_FLAGS, SC_READY, SC_FAILED, SC_DAMAGE, SC_BUFFER_DONE = 0, 1, 2, 3, 4, 6
Y_INVERT = 1


def word(value):
    return struct.pack("=I", value)


def stamp_color(frame):
    low, high = frame & 0xff, (frame >> 8) & 0xff
    return 0xff000000 | low << 16 | high << 8 | (low ^ 0xff)


def decode_stamp(value):
    r, g, b = (value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff
    return (g << 8 | r) if b == r ^ 0xff else None


class Demo:
    """A `kiln-demo-shm --stamp` window: its size and colour."""

    def __init__(self, width, height, color):
        self.width, self.height, self.color = width, height, 0xff000000 | color

    def spawn(self, kiln):
        kiln.spawn([client_binary("kiln-demo-shm"), "--size", f"{self.width}x{self.height}", "--color",
                    f"{self.color & 0xffffff:06x}", "--stamp"])

    def square_x(self, frame):
        return (frame * STEP) % (self.width - SQUARE)

    def rows(self, frame):
        """Its frame `frame`, row by row, as ARGB8888 bytes."""
        x, y = self.square_x(frame), (self.height - SQUARE) // 2
        plain = word(self.color) * self.width
        with_square = bytearray(plain)
        with_square[x * 4:(x + SQUARE) * 4] = word(WHITE) * SQUARE
        rows = []
        for r in range(self.height):
            row = bytearray(with_square if y <= r < y + SQUARE else plain)
            if r < STAMP:
                row[:STAMP * 4] = word(stamp_color(frame)) * STAMP
            rows.append(bytes(row))
        return rows


class Buffer(MappedShmBuffer):
    """An shm wl_buffer kept mapped: filled with the sentinel before each frame, read after."""

    def __init__(self, conn, width, height, shm_format):
        super().__init__(conn, width, height, shm_format, "kiln-capture-not-stale")
        self.sentinel = word(SENTINEL) * (width * height)

    def clear(self):
        self.map[:] = self.sentinel


class Reconstruction:
    """What a consumer holds: its own image, into which each frame's damage (and only that) is copied."""

    def __init__(self, width, height):
        self.width, self.height = width, height
        self.image = bytearray(word(SENTINEL) * (width * height))

    def apply(self, buffer, boxes):
        for x, y, w, h in boxes:
            x0, y0 = max(0, x), max(0, y)
            x1, y1 = min(self.width, x + w), min(self.height, y + h)
            for row in range(y0, y1):
                start, end = (row * self.width + x0) * 4, (row * self.width + x1) * 4
                self.image[start:end] = buffer.map[start:end]
                if buffer.format == XRGB8888:
                    self.image[start + 3:end:4] = b"\xff" * (x1 - x0)  # the X byte says nothing: opaque

    def row(self, demo, wx, wy, r):
        start = ((wy + r) * self.width + wx) * 4
        return bytes(self.image[start:start + demo.width * 4])

    def judge(self, demo, wx, wy):
        """(frame number, None) when `demo`'s window at (wx, wy) is one whole frame of it, else (stamp, why)."""
        at = ((wy + STAMP // 2) * self.width + wx + STAMP // 2) * 4
        value = struct.unpack_from("=I", self.image, at)[0]
        frame = decode_stamp(value)
        if frame is None:
            return None, f"no frame stamp (0x{value:08x})"
        for r, expected in enumerate(demo.rows(frame)):
            if self.row(demo, wx, wy, r) != expected:
                middle = self.row(demo, wx, wy, (demo.height - SQUARE) // 2 + SQUARE // 2)
                white = [i // 4 for i in range(0, len(middle), 4) if middle[i:i + 4] == word(WHITE)]
                shown = f"{white[0]}..{white[-1] + 1} ({len(white)} px)" if white else "nowhere"
                x = demo.square_x(frame)
                return frame, (f"stamp {frame} puts the square at x {x}..{x + SQUARE}; row {r} differs; the "
                               f"square's middle row is white at {shown}")
        return frame, None


class Tally:
    def __init__(self, what):
        self.what, self.torn, self.stamps, self.first_torn = what, 0, set(), None

    def add(self, index, judged):
        frame, why = judged
        if frame is not None:
            self.stamps.add(frame)
        if why:
            self.torn += 1
            self.first_torn = self.first_torn or f"frame {index}: {why}"

    def report(self):
        print(f"{self.what}: {FRAMES} frames, {self.torn} torn, {len(self.stamps)} distinct client frames")
        return self

    def check(self):
        check(len(self.stamps) >= FRAMES // 3, f"{self.what}: the captures follow the animation "
              f"({len(self.stamps)} distinct client frames in {FRAMES})")
        check(self.torn == 0, f"{self.what}: every frame is one whole frame of the client: {self.torn} of {FRAMES} "
              f"torn; first: {self.first_torn}")


def consume():
    """A consumer's own work between frames (encoding, say): 0 to 15 ms, so requests come at every point of the
    refresh, not only just after an output frame (where a frame waits for the next one)."""
    consume.turn = (consume.turn + 1) % 4
    time.sleep(consume.turn * 0.005)


consume.turn = 0


def ext_session(conn, manager, source):
    session = conn.create("ext_image_copy_capture_session_v1", manager, 0, ("o", source), ("u", 0))
    conn.dispatch_until(lambda e: e.obj == session and e.opcode in (SESSION_DONE, STOPPED))
    size = None
    events = conn.take(session)
    check(all(e.opcode != STOPPED for e in events), "the session is not stopped")
    for e in events:
        if e.opcode == BUFFER_SIZE:
            size = tuple(e.args("uu"))
    return session, size


def ext_frames(conn, session, size, demo, locate, what):
    """FRAMES frames of `session`, each judged after its damage is applied; `locate(image)` finds the window."""
    buffer = Buffer(conn, *size, ARGB8888)
    image = Reconstruction(*size)
    tally = Tally(what)
    where = None
    for index in range(FRAMES):
        buffer.clear()
        frame = conn.create("ext_image_copy_capture_frame_v1", session, 0)
        conn.send(frame, 1, ("o", buffer.obj))  # attach_buffer; no buffer damage: it holds only the sentinel
        conn.send(frame, 3)                      # capture
        end = conn.dispatch_until(lambda e, f=frame: e.obj == f and e.opcode in (READY, FAILED), timeout=10)
        events = conn.take(frame)
        conn.send(frame, 0)  # destroy
        if end.opcode != READY:
            raise AssertionError(f"{what}: frame {index} failed ({end.args('u')})")
        damage = [tuple(e.args("iiii")) for e in events if e.opcode == DAMAGE]
        if index == 0:
            check(damage == [(0, 0, *size)], f"{what}: the first frame is damaged whole ({damage})")
        image.apply(buffer, damage)
        where = where or locate(image)
        tally.add(index, image.judge(demo, *where))
        consume()
    return tally.report()


def window_finder(demo):
    return lambda image: find_window(image, demo)


def find_window(image, demo):
    """The demo window's top left in an output image: the first row holding its colour after the stamp."""
    color = word(demo.color)
    for y in range(image.height):
        row = image.image[y * image.width * 4:(y + 1) * image.width * 4]
        i = row.find(color * 16)
        while i >= 0 and i % 4:
            i = row.find(color * 16, i + 1)
        if i >= 0:
            return i // 4 - STAMP, y
    raise AssertionError("the demo window is not in the captured output")


def screencopy_frames(conn, demo):
    manager = conn.bind("zwlr_screencopy_manager_v1", 3)
    output = conn.bind("wl_output", 1)
    buffer, image, where = None, None, None
    tally = Tally("wlr-screencopy copy_with_damage")
    for index in range(FRAMES):
        frame = conn.create("zwlr_screencopy_frame_v1", manager, 0, ("i", 0), ("o", output))
        conn.dispatch_until(lambda e, f=frame: e.obj == f and e.opcode in (SC_BUFFER_DONE, SC_FAILED))
        offers = [e.args("uuuu") for e in conn.take(frame, SC_BUFFER)]
        shm = [o for o in offers if o[0] in (ARGB8888, XRGB8888)]
        if buffer is None:
            check(shm, f"screencopy offers an ARGB8888 or XRGB8888 shm buffer ({offers})")
            shm_format, width, height, stride = shm[0]
            check(stride == width * 4, f"a packed stride ({stride} for {width} px)")
            buffer, image = Buffer(conn, width, height, shm_format), Reconstruction(width, height)
        buffer.clear()
        conn.send(frame, 2, ("o", buffer.obj))  # copy_with_damage
        end = conn.dispatch_until(lambda e, f=frame: e.obj == f and e.opcode in (SC_READY, SC_FAILED), timeout=10)
        events = conn.take(frame)
        conn.send(frame, 1)  # destroy
        if end.opcode != SC_READY:
            raise AssertionError(f"screencopy frame {index} failed")
        flags = [e.args("u")[0] for e in events if e.opcode == SC_FLAGS]
        if any(f & Y_INVERT for f in flags):
            raise AssertionError(f"screencopy frame {index} is y-inverted (flags {flags}): this test reads rows as "
                                 "they come")
        damage = [tuple(e.args("uuuu")) for e in events if e.opcode == SC_DAMAGE]
        if index == 0:
            check(damage == [(0, 0, image.width, image.height)],
                  f"the first screencopy frame is damaged whole ({damage})")
        image.apply(buffer, damage)
        where = where or find_window(image, demo)
        tally.add(index, image.judge(demo, *where))
        consume()
    return tally.report()


def main():
    demo = Demo(240, 120, 0x3366cc)
    # Wider than the 640x480 output: its square slides off the screen's edge and on again.
    wide = Demo(800, 100, 0x884422)
    with Kiln() as kiln:
        demo.spawn(kiln)
        kiln.wait_for(lambda: kiln.screenshot().count((0x33, 0x66, 0xcc), 0, step=4) > 200, "the demo's window")
        with Connection(kiln.client_env) as conn:
            manager = conn.bind("ext_image_copy_capture_manager_v1", 1)
            outputs = conn.bind("ext_output_image_capture_source_manager_v1", 1)
            output = conn.bind("wl_output", 1)
            source = conn.create("ext_image_capture_source_v1", outputs, 0, ("o", output))
            session, size = ext_session(conn, manager, source)
            tallies = [ext_frames(conn, session, size, demo, window_finder(demo),
                                  "ext-image-copy-capture, output source")]

            session, size = ext_session(conn, manager, toplevel_source(conn, "kiln-demo-shm"))
            check(size == (demo.width, demo.height), f"the window session's buffers are the window's size ({size})")
            tallies.append(ext_frames(conn, session, size, demo, lambda image: (0, 0),
                                      "ext-image-copy-capture, window source"))
        with Connection(kiln.client_env) as conn:
            tallies.append(screencopy_frames(conn, demo))

        kiln.children[0].kill()
        wide.spawn(kiln)
        kiln.wait_for(lambda: (s := kiln.screenshot()).count((0x88, 0x44, 0x22), 0, step=4) > 200 and
                      s.count((0x33, 0x66, 0xcc), 0, step=4) == 0, "the wide window alone")
        with Connection(kiln.client_env) as conn:
            manager = conn.bind("ext_image_copy_capture_manager_v1", 1)
            session, size = ext_session(conn, manager, toplevel_source(conn, "kiln-demo-shm"))
            check(size == (wide.width, wide.height), f"the wide window's session has its size ({size})")
            tallies.append(ext_frames(conn, session, size, wide, lambda image: (0, 0),
                                      "ext-image-copy-capture, window partly off the output"))
    for tally in tallies:
        tally.check()


run_test(main)
