#!/usr/bin/env python3
"""ext-image-capture-source-v1 and ext-image-copy-capture-v1 on headless kiln, with a wire client reading the pixels
of its own shm buffers:
- an output capture has the pixels grim (screencopy) shows, the windows' colours where they are;
- a window captured alone while another covers it has its own pixels (an inner square included), not the cover's,
  and a change to it while covered comes as damage in the window's coordinates; at output scale 2 at twice its size;
- damage: after a change of one small square, the next frame reports damage covering that square and not the whole
  output, and only that is copied (the client's buffer keeps its own pixels elsewhere); a capture with nothing
  changed waits until something does;
- the cursor session gives the cursor a client set (its colour and size), its hotspot and its position;
- every protocol error of the two protocols, and failed(buffer_constraints) and failed(stopped); a frame whose
  buffer is gone fails at once; a new output mode is new constraints, a turned output's frames say so;
- `--restrict image-copy-capture` (and `--restrict screencopy`: both read the screen) hides all three globals from a
  client kiln did not start, while a -s command sees them."""
import shutil
import struct
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, Screenshot, check, need, run_test  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402
from wayland_wire import (ARGB8888, XRGB8888, Connection, MappedShmBuffer, ProtocolError, Toplevel,  # noqa: E402
                          expect_protocol_error, shm_buffer)

OUTPUT_SOURCES = "ext_output_image_capture_source_manager_v1"
TOPLEVEL_SOURCES = "ext_foreign_toplevel_image_capture_source_manager_v1"
MANAGER = "ext_image_copy_capture_manager_v1"
LIST = "ext_foreign_toplevel_list_v1"
# session events; frame events; cursor session events
BUFFER_SIZE, SHM_FORMAT, DMABUF_DEVICE, DMABUF_FORMAT, DONE, STOPPED = range(6)
TRANSFORM, DAMAGE, PRESENTATION_TIME, READY, FAILED = range(5)
ENTER, LEAVE, POSITION, HOTSPOT = range(4)
# failure reasons; errors
UNKNOWN, BUFFER_CONSTRAINTS, FAILED_STOPPED = 0, 1, 2
INVALID_OPTION, DUPLICATE_FRAME, NO_BUFFER, INVALID_BUFFER_DAMAGE, ALREADY_CAPTURED, DUPLICATE_SESSION = 1, 1, 1, 2, 3, 1
SIZE = (640, 480)
SENTINEL = 0xff0a0b0c


class Buffer(MappedShmBuffer):
    """An shm wl_buffer the test keeps mapped, to fill before a capture and read after."""

    def __init__(self, conn, width, height, shm_format=XRGB8888):
        super().__init__(conn, width, height, shm_format, "kiln-capture-test")

    def fill(self, color):
        self.map.seek(0)
        self.map.write(struct.pack("=I", color) * (self.width * self.height))

    def pixel(self, x, y):
        return struct.unpack_from("=I", self.map, (y * self.width + x) * 4)[0]

    def image(self):
        """As a Screenshot (RGB), to compare with grim's."""
        data = bytes(self.map)
        rgb = bytearray(self.width * self.height * 3)
        rgb[0::3], rgb[1::3], rgb[2::3] = data[2::4], data[1::4], data[0::4]
        return Screenshot(self.width, self.height, bytes(rgb))


class Session:
    """An ext_image_copy_capture_session_v1 with its constraints."""

    def __init__(self, conn, obj):
        self.conn, self.obj = conn, obj
        self.size, self.formats, self.stopped = None, [], False
        self.constraints()

    def constraints(self):
        done = self.conn.dispatch_until(lambda e: e.obj == self.obj and e.opcode in (DONE, STOPPED))
        for e in self.conn.take(self.obj):
            if e.opcode == BUFFER_SIZE:
                self.size = tuple(e.args("uu"))
            elif e.opcode == SHM_FORMAT:
                self.formats.append(e.args("u")[0])
            elif e.opcode == STOPPED:
                self.stopped = True
        return done

    def frame(self, buffer, damage=(), attach=True):
        """Creates a frame, attaches `buffer` with `damage` boxes and sends capture; returns the frame id."""
        frame = self.conn.create("ext_image_copy_capture_frame_v1", self.obj, 0)
        if attach:
            self.conn.send(frame, 1, ("o", buffer.obj))
        for x, y, w, h in damage:
            self.conn.send(frame, 2, ("i", x), ("i", y), ("i", w), ("i", h))
        self.conn.send(frame, 3)
        return frame

    def result(self, frame, timeout=10):
        """Waits for ready or failed: ("ready", damage boxes, transform) or ("failed", reason)."""
        end = self.conn.dispatch_until(lambda e: e.obj == frame and e.opcode in (READY, FAILED), timeout=timeout)
        events = self.conn.take(frame)
        self.conn.send(frame, 0)  # destroy
        if end.opcode == FAILED:
            return "failed", end.args("u")[0]
        damage = [tuple(e.args("iiii")) for e in events if e.opcode == DAMAGE]
        transform = [e.args("u")[0] for e in events if e.opcode == TRANSFORM]
        times = [e.args("uuu") for e in events if e.opcode == PRESENTATION_TIME]
        check(len(transform) == 1 and len(times) == 1 and times[0][2] < 1_000_000_000,
              "a ready frame comes with one transform and one presentation time")
        return "ready", damage, transform[0]

    def capture(self, buffer, damage=(), timeout=10):
        result = self.result(self.frame(buffer, damage), timeout)
        check(result[0] == "ready", f"the frame is ready ({result})")
        return result[1]


class Capturer:
    """A client bound to the three globals."""

    def __init__(self, kiln):
        self.conn = Connection(kiln.client_env)
        self.manager = self.conn.bind(MANAGER, 1)
        self.output_sources = self.conn.bind(OUTPUT_SOURCES, 1)
        self.toplevel_sources = self.conn.bind(TOPLEVEL_SOURCES, 1)
        self.output = self.conn.bind("wl_output", 1)

    def output_source(self):
        return self.conn.create("ext_image_capture_source_v1", self.output_sources, 0, ("o", self.output))

    def toplevel_source(self, title):
        """A source for the window titled `title`, found through ext_foreign_toplevel_list_v1."""
        listing = self.conn.bind(LIST, 1)
        deadline = time.monotonic() + 10
        handles = {}
        while time.monotonic() < deadline:
            self.conn.roundtrip()
            for e in self.conn.take(listing, 0):
                handle = e.args("n")[0]
                self.conn.interfaces[handle] = "ext_foreign_toplevel_handle_v1"
                handles[handle] = None
            for handle in handles:
                for e in self.conn.take(handle, 2):  # title
                    handles[handle] = e.args("s")[0]
            found = [h for h, t in handles.items() if t == title]
            if found:
                self.handle = found[0]
                return self.conn.create("ext_image_capture_source_v1", self.toplevel_sources, 0, ("o", found[0]))
            time.sleep(0.05)
        raise AssertionError(f"no handle titled {title!r}")

    def session(self, source, options=0):
        obj = self.conn.create("ext_image_copy_capture_session_v1", self.manager, 0, ("o", source), ("u", options))
        return Session(self.conn, obj)


def area(boxes):
    return sum(w * h for _, _, w, h in boxes)


def covers(boxes, x, y, w, h):
    """Whether every pixel of the rectangle is inside one of `boxes`."""
    return all(any(bx <= px < bx + bw and by <= py < by + bh for bx, by, bw, bh in boxes)
               for py in range(y, y + h) for px in range(x, x + w))


def window(conn, title, width, height, color, inner=None):
    """A mapped xdg toplevel whose buffer is `color` with an `inner` (x, y, w, h, colour) rectangle."""
    top = Toplevel(conn, title)
    top.commit()
    top.wait_configure()
    buffer = shm_buffer(conn, width, height, color, inner=inner)
    conn.send(top.surface, 1, ("o", buffer), ("i", 0), ("i", 0))
    conn.send(top.surface, 2, ("i", 0), ("i", 0), ("i", width), ("i", height))
    top.commit()
    conn.roundtrip()
    return top


def redraw(conn, top, width, height, color, inner):
    """Commits a new buffer with only the inner rectangle damaged (wl_surface.damage_buffer)."""
    buffer = shm_buffer(conn, width, height, color, inner=inner)
    x, y, w, h, _ = inner
    conn.send(top.surface, 1, ("o", buffer), ("i", 0), ("i", 0))
    conn.send(top.surface, 9, ("i", x), ("i", y), ("i", w), ("i", h))  # damage_buffer (v4)
    top.commit()
    conn.roundtrip()


def screen_pixels(kiln):
    with Connection(kiln.client_env) as app:
        window(app, "red", 200, 150, 0xffff0000)
        window(app, "blue", 120, 90, 0xff0000ff)
        # A third, half transparent through alpha-modifier: the capture blends it as the screen does.
        faded = Toplevel(app, "faded")
        modifier = app.create("wp_alpha_modifier_surface_v1", app.bind("wp_alpha_modifier_v1", 1), 1,
                              ("o", faded.surface))
        app.send(modifier, 1, ("u", 0x7fffffff))  # set_multiplier: one half
        faded.commit()
        faded.map(100, 80, 0xff00ff00)
        grim = kiln.wait_for(lambda: (s := kiln.screenshot()).count((0, 0, 255)) > 0 and s.count((0, 255, 0), 0) == 0
                             and s, "the windows, one faded")
        cap = Capturer(kiln)
        session = cap.session(cap.output_source())
        check(session.size == SIZE and set(session.formats) >= {ARGB8888, XRGB8888},
              f"an output session asks for {SIZE} buffers in ARGB8888 or XRGB8888 ({session.size}, "
              f"{session.formats})")
        buffer = Buffer(cap.conn, *SIZE)
        buffer.fill(SENTINEL)
        damage = session.capture(buffer)
        check(damage == [(0, 0, *SIZE)], f"the first frame carries full damage ({damage})")
        image = buffer.image()
        for color in ((255, 0, 0), (0, 0, 255)):
            check(image.bounding_box(color, 0) == grim.bounding_box(color, 0),
                  f"{color} is where grim shows it ({image.bounding_box(color, 0)} vs {grim.bounding_box(color, 0)})")
        # grim's frame may be composed on the CPU (pixman) where the capture draws with GL: blending may round apart.
        same = sum(1 for i in range(0, len(image.pixels), 3)
                   if all(abs(a - b) <= 2 for a, b in zip(image.pixels[i:i + 3], grim.pixels[i:i + 3])))
        check(same == SIZE[0] * SIZE[1], f"the capture equals grim's screenshot, the faded window too ({same} of "
              f"{SIZE[0] * SIZE[1]} pixels within 2 of it)")
        check(image.count((0, 255, 0), 0) == 0, "no pixel of the faded window is drawn unfaded")
        cap.conn.close()


def covered_window(kiln):
    with Connection(kiln.client_env) as app:
        inner = (20, 30, 40, 50, 0xff00ff00)
        red = window(app, "covered", 200, 150, 0xffff0000, inner)
        window(app, "cover", 600, 440, 0xff0000ff)
        kiln.wait_for(lambda: kiln.screenshot().count((0, 0, 255)) == 600 * 440, "the cover")
        grim = kiln.screenshot()
        check(grim.count((255, 0, 0), 0) == 0 and grim.count((0, 255, 0), 0) == 0,
              "the covered window shows nowhere on the screen (grim)")
        cap = Capturer(kiln)
        session = cap.session(cap.toplevel_source("covered"))
        check(session.size == (200, 150), f"a window session asks for the window's size ({session.size})")
        buffer = Buffer(cap.conn, 200, 150, ARGB8888)
        session.capture(buffer)
        image = buffer.image()
        check(image.count((255, 0, 0), 0) == 200 * 150 - 40 * 50 and image.bounding_box((0, 255, 0), 0) ==
              (20, 30, 60, 80), f"the window captured alone has its own pixels, not the cover's "
              f"(red {image.count((255, 0, 0), 0)}, green at {image.bounding_box((0, 255, 0), 0)})")

        # A change while covered: damage in the window's own coordinates, and the new pixels.
        buffer.fill(SENTINEL)
        redraw(app, red, 200, 150, 0xffff0000, (150, 100, 10, 10, 0xffffff00))
        damage = session.capture(buffer)
        image = buffer.image()
        check(covers(damage, 150, 100, 10, 10) and area(damage) < 200 * 150 // 4,
              f"a change while covered is damage in the window's coordinates ({damage})")
        check(image.at(155, 105) == (255, 255, 0) and buffer.pixel(5, 5) == SENTINEL,
              "the changed square is copied, and nothing else")
        cap.conn.close()


def scaled():
    """At output scale 2 a window is captured at 2x, its damage scaled with it; the output at its buffer size."""
    scratch = tempfile.mkdtemp(prefix="kiln-capture-")
    try:
        config = Path(scratch) / "kiln.ini"
        config.write_text("[output HEADLESS-1]\nscale=2\n")
        with Kiln("--config", str(config), size="1280x960") as kiln, Connection(kiln.client_env) as app:
            red = window(app, "scaled", 200, 150, 0xffff0000, (20, 30, 40, 50, 0xff00ff00))
            grim = kiln.wait_for(lambda: (s := kiln.screenshot()).count((0, 255, 0), 0) > 70 * 90 and s,
                                 "the window at scale 2")
            cap = Capturer(kiln)
            output = cap.session(cap.output_source())
            check(output.size == (1280, 960), f"at scale 2 an output session asks for its buffer size ({output.size})")
            shot = Buffer(cap.conn, 1280, 960)
            output.capture(shot)
            check(shot.image().pixels == grim.pixels, "and the capture equals grim's screenshot")
            session = cap.session(cap.toplevel_source("scaled"))
            check(session.size == (400, 300), f"a 200x150 window on a scale-2 output is captured at 400x300 "
                  f"({session.size})")
            buffer = Buffer(cap.conn, 400, 300)
            session.capture(buffer)
            image = buffer.image()
            # Scaled up with linear filtering: the edges between the colours may blend by a pixel.
            box = image.bounding_box((0, 255, 0), 100)
            check(box and all(abs(a - b) <= 1 for a, b in zip(box, (40, 60, 120, 160))) and
                  image.at(80, 110) == (0, 255, 0) and image.at(5, 5) == (255, 0, 0) and
                  image.at(394, 294) == (255, 0, 0), f"with its pixels at 2x (green at {box})")
            redraw(app, red, 200, 150, 0xffff0000, (150, 100, 10, 10, 0xffffff00))
            damage = session.capture(buffer)
            check(covers(damage, 300, 200, 20, 20) and area(damage) < 400 * 300 // 10,
                  f"a 10x10 change is 20x20 damage in the window's buffer ({damage})")
            check(buffer.image().at(310, 210) == (255, 255, 0), "with its new pixels")
            cap.conn.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def damage_and_waiting(kiln):
    with Connection(kiln.client_env) as app:
        red = window(app, "damaged", 200, 150, 0xffff0000)
        kiln.wait_for(lambda: kiln.screenshot().count((255, 0, 0), 0) == 200 * 150, "the window")
        grim = kiln.screenshot()
        x0, y0, _, _ = grim.bounding_box((255, 0, 0), 0)
        cap = Capturer(kiln)
        session = cap.session(cap.output_source())
        buffer = Buffer(cap.conn, *SIZE)
        session.capture(buffer)

        buffer.fill(SENTINEL)  # what the client's buffer holds; kiln must overwrite only what changed
        redraw(app, red, 200, 150, 0xffff0000, (60, 40, 16, 16, 0xff00ff00))
        damage = session.capture(buffer)
        check(covers(damage, x0 + 60, y0 + 40, 16, 16) and area(damage) < SIZE[0] * SIZE[1] // 10,
              f"the frame after a 16x16 change reports damage covering it, not the whole output ({damage})")
        check(buffer.pixel(x0 + 68, y0 + 48) == 0xff00ff00, "the changed square has its new pixels")
        outside = [(x, y) for x, y in ((5, 5), (SIZE[0] - 5, SIZE[1] - 5), (x0 + 150, y0 + 120))
                   if not covers(damage, x, y, 1, 1)]
        check(outside and all(buffer.pixel(x, y) == SENTINEL for x, y in outside),
              f"pixels outside the damage are not copied: the client's own stay ({outside})")

        frame = session.frame(buffer)
        try:
            session.result(frame, timeout=1.5)
            waited = False
        except ProtocolError:
            waited = True
        check(waited, "a capture with nothing changed waits")
        redraw(app, red, 200, 150, 0xffff0000, (120, 100, 8, 8, 0xff0000ff))
        result = session.result(frame)
        check(result[0] == "ready" and covers(result[1], x0 + 120, y0 + 100, 8, 8) and
              area(result[1]) < SIZE[0] * SIZE[1] // 10,
              f"and is ready once something changes, with that as damage ({result})")
        cap.conn.close()


def cursor(kiln):
    with Connection(kiln.client_env) as app:
        window(app, "pointer target", 300, 200, 0xff808080)
        seat = app.bind("wl_seat", 5)
        pointer = app.create("wl_pointer", seat, 0)
        compositor = app.bind("wl_compositor", 4)
        cursor_surface = app.create("wl_surface", compositor, 0)
        image = shm_buffer(app, 16, 12, 0xffff00ff)
        app.send(cursor_surface, 1, ("o", image), ("i", 0), ("i", 0))
        app.send(cursor_surface, 2, ("i", 0), ("i", 0), ("i", 16), ("i", 12))
        app.send(cursor_surface, 6)
        grim = kiln.wait_for(lambda: (s := kiln.screenshot()).bounding_box((128, 128, 128), 0) and s, "the window")
        x0, y0, x1, y1 = grim.bounding_box((128, 128, 128), 0)
        mover = Connection(kiln.client_env)
        virtual = VirtualPointer(mover, SIZE)
        target = (x0 + 100, y0 + 80)
        virtual.move(*target)
        enter = app.dispatch_until(lambda e: e.obj == pointer and e.opcode == 0)
        app.send(pointer, 0, ("u", enter.args("u")[0]), ("o", cursor_surface), ("i", 3), ("i", 4))  # set_cursor
        app.roundtrip()
        kiln.wait_for(lambda: kiln.screenshot().at(target[0], target[1]) == (255, 0, 255), "the client's cursor")

        cap = Capturer(kiln)
        cursor_session = cap.conn.create("ext_image_copy_capture_cursor_session_v1", cap.manager, 1,
                                         ("o", cap.output_source()), ("o", cap.conn.create("wl_pointer",
                                                                                           cap.conn.bind("wl_seat", 5),
                                                                                           0)))
        cap.conn.dispatch_until(lambda e: e.obj == cursor_session and e.opcode == HOTSPOT)
        events = cap.conn.take(cursor_session)
        kinds = [e.opcode for e in events]
        position = [e.args("ii") for e in events if e.opcode == POSITION]
        hotspot = [e.args("ii") for e in events if e.opcode == HOTSPOT]
        check(kinds[0] == ENTER and position[-1] == list(target) and hotspot[-1] == [3, 4],
              f"the cursor session enters with the hotspot's position {target} and hotspot (3, 4) "
              f"({kinds}, {position}, {hotspot})")
        obj = cap.conn.create("ext_image_copy_capture_session_v1", cursor_session, 1)
        session = Session(cap.conn, obj)
        check(session.size == (16, 12), f"the cursor image session asks for the cursor's size ({session.size})")
        buffer = Buffer(cap.conn, 16, 12, ARGB8888)
        session.capture(buffer)
        check(all(buffer.pixel(x, y) == 0xffff00ff for x in range(16) for y in range(12)),
              "the cursor frame is the client's cursor image")

        virtual.move(target[0] + 40, target[1] + 30)
        moved = cap.conn.dispatch_until(lambda e: e.obj == cursor_session and e.opcode == POSITION)
        check(moved.args("ii") == [target[0] + 40, target[1] + 30], f"a move is a new position ({moved.args('ii')})")

        # Without paint_cursors an output capture has no cursor in it; with it, the cursor is drawn.
        plain, painted = cap.session(cap.output_source()), cap.session(cap.output_source(), options=1)
        shot = Buffer(cap.conn, *SIZE)
        plain.capture(shot)
        at = (target[0] + 40 + 5, target[1] + 30 + 5)
        check(shot.pixel(*at) == 0xff808080, f"without paint_cursors the cursor is not in the frame "
              f"({shot.pixel(*at):#x})")
        painted.capture(shot)
        check(shot.pixel(*at) == 0xffff00ff, f"with paint_cursors it is ({shot.pixel(*at):#x})")
        # A window's frames alike: the cursor over it only with paint_cursors.
        local = (at[0] - x0, at[1] - y0)
        for options, expected in ((0, 0xff808080), (1, 0xffff00ff)):
            s = cap.session(cap.toplevel_source("pointer target"), options)
            window_shot = Buffer(cap.conn, 300, 200)
            s.capture(window_shot)
            check(window_shot.pixel(*local) == expected, f"a window's frame with options={options} has "
                  f"{expected:#x} under the cursor ({window_shot.pixel(*local):#x})")
        # Over a window: the hotspot in the window's coordinates; leave once the cursor is off it.
        window_cursor = cap.conn.create("ext_image_copy_capture_cursor_session_v1", cap.manager, 1,
                                        ("o", cap.toplevel_source("pointer target")),
                                        ("o", cap.conn.create("wl_pointer", cap.conn.bind("wl_seat", 5), 0)))
        cap.conn.dispatch_until(lambda e: e.obj == window_cursor and e.opcode == HOTSPOT)
        events = cap.conn.take(window_cursor)
        position = [e.args("ii") for e in events if e.opcode == POSITION]
        expected = [target[0] + 40 - x0, target[1] + 30 - y0]  # where the pointer was moved last
        check(events[0].opcode == ENTER and position == [expected],
              f"a window's cursor session has the hotspot relative to the window ({position})")
        virtual.move(x1 + 60, y1 + 60)
        cap.conn.dispatch_until(lambda e: e.obj == window_cursor and e.opcode == LEAVE)
        check(True, "leave comes once the cursor is off the window")

        mover.close()
        cap.conn.close()


def expect_error(kiln, what, interface, code, requests):
    with Connection(kiln.client_env) as app:
        window(app, "errors", 50, 50, 0xff00ff00)
        cap = Capturer(kiln)
        requests(cap)
        error = str(expect_protocol_error(cap.conn))
        check(f"on {interface}@" in error and f": {code} " in error, f"{what}: {interface} error {code} ({error})")
        cap.conn.close()
    check(kiln.alive(), "kiln keeps running")


def errors(kiln):
    def session(cap):
        return cap.session(cap.output_source())

    expect_error(kiln, "an unknown option", MANAGER, INVALID_OPTION,
                 lambda cap: cap.conn.create("ext_image_copy_capture_session_v1", cap.manager, 0,
                                             ("o", cap.output_source()), ("u", 2)))

    def duplicate_frame(cap):
        s = session(cap)
        cap.conn.create("ext_image_copy_capture_frame_v1", s.obj, 0)
        cap.conn.create("ext_image_copy_capture_frame_v1", s.obj, 0)
    expect_error(kiln, "a second frame", "ext_image_copy_capture_session_v1", DUPLICATE_FRAME, duplicate_frame)

    expect_error(kiln, "capture without a buffer", "ext_image_copy_capture_frame_v1", NO_BUFFER,
                 lambda cap: session(cap).frame(None, attach=False))
    for box in ((-1, 0, 10, 10), (0, -1, 10, 10), (0, 0, 0, 10), (0, 0, 10, -3)):
        expect_error(kiln, f"damage {box}", "ext_image_copy_capture_frame_v1", INVALID_BUFFER_DAMAGE,
                     lambda cap, box=box: session(cap).frame(Buffer(cap.conn, *SIZE), damage=[box]))

    def after_capture(request):
        def send(cap):
            s = session(cap)
            buffer = Buffer(cap.conn, *SIZE)
            frame = s.frame(buffer)
            if request == "attach":
                cap.conn.send(frame, 1, ("o", buffer.obj))
            elif request == "damage":
                cap.conn.send(frame, 2, ("i", 0), ("i", 0), ("i", 1), ("i", 1))
            else:
                cap.conn.send(frame, 3)
        return send
    for request in ("attach", "damage", "capture"):
        expect_error(kiln, f"{request} after capture", "ext_image_copy_capture_frame_v1", ALREADY_CAPTURED,
                     after_capture(request))

    def duplicate_session(cap):
        cursor_session = cap.conn.create("ext_image_copy_capture_cursor_session_v1", cap.manager, 1,
                                         ("o", cap.output_source()),
                                         ("o", cap.conn.create("wl_pointer", cap.conn.bind("wl_seat", 5), 0)))
        cap.conn.create("ext_image_copy_capture_session_v1", cursor_session, 1)
        cap.conn.create("ext_image_copy_capture_session_v1", cursor_session, 1)
    expect_error(kiln, "a second cursor capture session", "ext_image_copy_capture_cursor_session_v1",
                 DUPLICATE_SESSION, duplicate_session)

    # Failures that are not errors: a buffer of the wrong size, and a window that goes.
    with Connection(kiln.client_env) as app:
        top = window(app, "going", 80, 60, 0xff00ff00)
        # On screen: its mapping's damage is spent, so the frame below waits for the next change.
        kiln.wait_for(lambda: kiln.screenshot().count((0, 255, 0), 0) == 80 * 60, "the window")
        cap = Capturer(kiln)
        s = cap.session(cap.output_source())
        result = s.result(s.frame(Buffer(cap.conn, 100, 100)))
        check(result == ("failed", BUFFER_CONSTRAINTS), f"a buffer of the wrong size fails: buffer_constraints "
              f"({result})")
        # On a still screen a later frame would wait; one whose buffer is gone fails at once instead.
        s = cap.session(cap.output_source())
        s.capture(Buffer(cap.conn, *SIZE))
        buffer = Buffer(cap.conn, *SIZE)
        frame = cap.conn.create("ext_image_copy_capture_frame_v1", s.obj, 0)
        cap.conn.send(frame, 1, ("o", buffer.obj))
        cap.conn.send(buffer.obj, 0)  # wl_buffer.destroy
        cap.conn.send(frame, 3)
        result = s.result(frame)
        check(result == ("failed", BUFFER_CONSTRAINTS), f"a frame whose buffer was destroyed fails at once: "
              f"buffer_constraints ({result})")
        s = cap.session(cap.toplevel_source("going"))
        buffer = Buffer(cap.conn, 80, 60)
        s.capture(buffer)
        frame = s.frame(buffer)  # waits: nothing changed
        cap.conn.roundtrip()
        app.send(top.surface, 1, ("o", 0), ("i", 0), ("i", 0))  # unmap
        top.commit()
        app.roundtrip()
        result = s.result(frame)
        check(result == ("failed", FAILED_STOPPED), f"a waiting frame of a window that unmaps fails: stopped "
              f"({result})")
        check(any(e.opcode == STOPPED for e in cap.conn.take(s.obj)), "and its session is stopped")
        result = s.result(s.frame(buffer))
        check(result == ("failed", FAILED_STOPPED), f"a frame captured on the stopped session fails: stopped "
              f"({result})")
        gone = cap.conn.create("ext_image_capture_source_v1", cap.toplevel_sources, 0, ("o", cap.handle))
        check(cap.session(gone).stopped, "a session from the closed handle of a window that went is stopped at once")
        cap.conn.close()


def output_changes(kiln):
    """A new mode is new constraints (a waiting frame of the old size fails), a transform comes with the frame."""
    need("wlr-randr")
    with Connection(kiln.client_env) as app:
        window(app, "resized", 100, 100, 0xffff0000)
        kiln.wait_for(lambda: kiln.screenshot().count((255, 0, 0), 0) == 100 * 100, "the window")  # damage spent
        cap = Capturer(kiln)
        session = cap.session(cap.output_source())
        old = Buffer(cap.conn, *SIZE)
        session.capture(old)
        frame = session.frame(old)  # waits: nothing changed
        cap.conn.roundtrip()
        result = kiln.run(["wlr-randr", "--output", "HEADLESS-1", "--custom-mode", "800x600"])
        check(result.returncode == 0, f"wlr-randr sets 800x600 ({result.stdout.strip()})")
        check(session.result(frame) == ("failed", BUFFER_CONSTRAINTS),
              "the frame waiting with a 640x480 buffer fails: buffer_constraints")
        session.constraints()
        check(session.size == (800, 600), f"the session is told the new size ({session.size})")
        new = Buffer(cap.conn, 800, 600)
        damage = session.capture(new)
        check(damage == [(0, 0, 800, 600)], f"the first frame at the new size is whole ({damage})")
        result = kiln.run(["wlr-randr", "--output", "HEADLESS-1", "--transform", "90"])
        check(result.returncode == 0, f"wlr-randr sets transform 90 ({result.stdout.strip()})")
        frame = session.frame(new)
        end = cap.conn.dispatch_until(lambda e: e.obj == frame and e.opcode in (READY, FAILED))
        transform = [e.args("u")[0] for e in cap.conn.take(frame) if e.opcode == TRANSFORM]
        cap.conn.send(frame, 0)  # destroy
        check(end.opcode == READY and transform == [1], f"a frame of the turned output says transform 90 "
              f"({transform})")

        # A client that leaves with a frame waiting hurts nobody.
        session.frame(new)
        cap.conn.roundtrip()
        cap.conn.close()
        app.roundtrip()
    check(kiln.alive(), "kiln keeps running after a client left with a frame waiting")


def restricted():
    need("wayland-info")
    scratch = tempfile.mkdtemp(prefix="kiln-capture-")
    try:
        seen_file = Path(scratch) / "globals"
        for name in ("image-copy-capture", "screencopy"):
            command = f"wayland-info > {seen_file}.part; mv {seen_file}.part {seen_file}"
            with Kiln("--restrict", name, "-s", command) as kiln:
                with Connection(kiln.client_env) as conn:
                    seen = [g for g in (OUTPUT_SOURCES, TOPLEVEL_SOURCES, MANAGER) if g in conn.globals]
                    check(not seen, f"--restrict {name} hides all three from a client kiln did not start ({seen})")
                kiln.wait_for(seen_file.exists, "the -s command's wayland-info")
                listed = seen_file.read_text()
                check(all(f"'{g}'" in listed for g in (OUTPUT_SOURCES, TOPLEVEL_SOURCES, MANAGER)),
                      f"a command kiln started with --restrict {name} sees them")
                seen_file.unlink()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    with Kiln() as kiln:
        with Connection(kiln.client_env) as conn:
            versions = {name: conn.globals.get(name, (0, 0))[1] for name in (OUTPUT_SOURCES, TOPLEVEL_SOURCES, MANAGER)}
        check(all(v == 1 for v in versions.values()), f"kiln offers the three globals at version 1 ({versions})")
        screen_pixels(kiln)
    with Kiln() as kiln:
        covered_window(kiln)
    with Kiln() as kiln:
        damage_and_waiting(kiln)
    with Kiln() as kiln:
        cursor(kiln)
    with Kiln() as kiln:
        errors(kiln)
        output_changes(kiln)
    scaled()
    restricted()


run_test(main)
