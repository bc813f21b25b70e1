"""A minimal Wayland client speaking the wire format directly, for tests that need protocols no installed tool uses.

Python 3 standard library only. Requests are sent as (object id, opcode, typed arguments); events are read raw and
decoded by the test with the signature it expects, so opcodes come from the protocol XML by hand. Events that carry
file descriptors get theirs attached when read (see FD_EVENTS); the test owns and closes them.
"""
import array
import mmap
import os
import socket
import struct
import time

from rig_time import time_scale

# (interface, event opcode) -> how many fds the event carries.
FD_EVENTS = {
    ("wl_keyboard", 0): 1,                       # keymap
    ("zwp_primary_selection_source_v1", 0): 1,   # send
    ("wl_data_source", 1): 1,                    # send
    ("zwlr_data_control_source_v1", 0): 1,       # send
    ("wp_image_description_info_v1", 1): 1,      # icc_file
}


class ProtocolError(AssertionError):
    """A protocol error from the compositor, a closed connection or an event that never came: the test fails."""


class Event:
    def __init__(self, obj, interface, opcode, payload, fds):
        self.obj, self.interface, self.opcode, self.payload, self.fds = obj, interface, opcode, payload, fds

    def args(self, signature):
        """Decodes the payload: u/i (32-bit), f (fixed, to float), s (string), a (array bytes), o/n (ids)."""
        out, pos = [], 0
        for kind in signature:
            if kind in "uon":
                out.append(struct.unpack_from("=I", self.payload, pos)[0])
                pos += 4
            elif kind == "i":
                out.append(struct.unpack_from("=i", self.payload, pos)[0])
                pos += 4
            elif kind == "f":
                out.append(struct.unpack_from("=i", self.payload, pos)[0] / 256.0)
                pos += 4
            elif kind in "sa":
                length = struct.unpack_from("=I", self.payload, pos)[0]
                data = self.payload[pos + 4:pos + 4 + length]
                out.append(data[:-1].decode() if kind == "s" and length else data)
                pos += 4 + (length + 3) // 4 * 4
        return out

    def __repr__(self):
        return f"<{self.interface}@{self.obj} event {self.opcode}>"


class Connection:
    """One client connection to $XDG_RUNTIME_DIR/$WAYLAND_DISPLAY of `env`."""

    def __init__(self, env, timeout=5.0):
        """`timeout`: how long a wait for an event lasts unless a call says otherwise (slow rigs, such as a VM
        under TCG, ask for more)."""
        self.timeout = timeout * time_scale()
        path = os.path.join(env["XDG_RUNTIME_DIR"], env["WAYLAND_DISPLAY"])
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # The socket file exists from bind(), a moment before the compositor listens on it.
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                self.sock.connect(path)
                break
            except ConnectionRefusedError:
                if time.monotonic() > deadline:
                    self.sock.close()
                    raise
                time.sleep(0.02)
        self.buffer = b""
        self.fds = []
        self.events = []
        self.interfaces = {1: "wl_display"}
        self.next_id = 2
        self.globals = {}
        self.registry = self.create("wl_registry", 1, 1)
        self.roundtrip()
        for event in self.take(self.registry, 0):
            name, interface, version = event.args("usu")
            self.globals[interface] = (name, version)

    def close(self):
        for fd in self.fds:
            os.close(fd)
        for event in self.events:
            for fd in event.fds:
                os.close(fd)
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def new_id(self, interface):
        """The next object id; the compositor requires them to be used in the order they were taken."""
        obj = self.next_id
        self.next_id += 1
        self.interfaces[obj] = interface
        return obj

    def send(self, obj, opcode, *args, fds=()):
        """args: ('u'|'i'|'o', int), ('f', float), ('s', str), ('n', id); fd arguments go in `fds`, in order."""
        payload = b""
        for kind, value in args:
            if kind in "uon":
                payload += struct.pack("=I", value)
            elif kind == "i":
                payload += struct.pack("=i", value)
            elif kind == "f":
                payload += struct.pack("=i", int(value * 256))
            elif kind == "s":
                data = value.encode() + b"\0"
                payload += struct.pack("=I", len(data)) + data + b"\0" * (-len(data) % 4)
        header = struct.pack("=II", obj, (8 + len(payload)) << 16 | opcode)
        ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
        try:
            self.sock.sendmsg([header + payload], ancillary)
        except (BrokenPipeError, ConnectionResetError):
            # The compositor has cut the client off; as libwayland does, the request is dropped and the reason
            # (its protocol error) is what the next read finds. Raising here would race the test against the
            # compositor: a request sent a moment earlier would have gone out.
            pass

    def create(self, interface, obj, opcode, *args):
        """Sends a request whose first argument is the new object's id; returns that id."""
        new = self.new_id(interface)
        self.send(obj, opcode, ("n", new), *args)
        return new

    def bind(self, interface, version):
        name, offered = self.globals[interface]
        obj = self.new_id(interface)
        self.send(self.registry, 0, ("u", name), ("s", interface), ("u", min(version, offered)), ("n", obj))
        return obj

    def _read(self, timeout):
        self.sock.settimeout(timeout)
        try:
            data, ancillary, _, _ = self.sock.recvmsg(65536, socket.CMSG_SPACE(28 * 4))
        except TimeoutError:
            return  # the caller checks its deadline
        except ConnectionResetError:
            # Closed by the compositor with our requests unread: everything it sent has been read already.
            data, ancillary = b"", []
        if not data:
            raise ProtocolError("the compositor closed the connection")
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds = array.array("i")
                fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
                self.fds.extend(fds)
        self.buffer += data
        while len(self.buffer) >= 8:
            obj, word = struct.unpack_from("=II", self.buffer)
            size, opcode = word >> 16, word & 0xffff
            if len(self.buffer) < size:
                break
            payload, self.buffer = self.buffer[8:size], self.buffer[size:]
            interface = self.interfaces.get(obj, "?")
            count = FD_EVENTS.get((interface, opcode), 0)
            fds, self.fds = self.fds[:count], self.fds[count:]
            event = Event(obj, interface, opcode, payload, fds)
            if obj == 1 and opcode == 0:
                failed, code, message = event.args("uus")
                raise ProtocolError(f"protocol error on {self.interfaces.get(failed, '?')}@{failed}: {code} {message}")
            if obj != 1:
                self.events.append(event)

    def dispatch_until(self, predicate, timeout=None):
        """Reads events until predicate(event) is true for a newly read or already queued one; returns it."""
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            for event in self.events[seen:]:
                if predicate(event):
                    return event
            seen = len(self.events)
            left = deadline - time.monotonic()
            if left <= 0:
                raise ProtocolError(f"the awaited event did not come within {timeout} s")
            self._read(left)

    def roundtrip(self, timeout=None):
        callback = self.create("wl_callback", 1, 0)
        self.dispatch_until(lambda e: e.obj == callback, timeout)

    def take(self, obj, opcode=None):
        """Removes and returns the queued events of `obj` (with `opcode`, if given)."""
        taken = [e for e in self.events if e.obj == obj and (opcode is None or e.opcode == opcode)]
        self.events = [e for e in self.events if e not in taken]
        return taken

    def answer_pings(self, wm_base):
        for event in self.take(wm_base, 0):
            self.send(wm_base, 3, ("u", event.args("u")[0]))


ARGB8888, XRGB8888 = 0, 1  # wl_shm.format


def shm_buffer(conn, width, height, color, shm_format=XRGB8888, inner=None):
    """A wl_buffer of width x height pixels, all `color` (0xAARRGGBB); `inner` = (x, y, w, h, colour) paints a
    rectangle of another."""
    shm = conn.bind("wl_shm", 1)
    size = width * height * 4
    fd = os.memfd_create("kiln-wire-test", os.MFD_CLOEXEC)
    try:
        os.ftruncate(fd, size)
        with mmap.mmap(fd, size) as pixels:
            pixels.write(struct.pack("=I", color) * (width * height))
            if inner:
                x, y, w, h, c = inner
                for row in range(y, y + h):
                    pixels.seek((row * width + x) * 4)
                    pixels.write(struct.pack("=I", c) * w)
        pool = conn.new_id("wl_shm_pool")
        conn.send(shm, 0, ("n", pool), ("i", size), fds=[fd])
    finally:
        os.close(fd)
    return conn.create("wl_buffer", pool, 0, ("i", 0), ("i", width), ("i", height), ("i", width * 4),
                       ("u", shm_format))


class MappedShmBuffer:
    """An shm wl_buffer of its own pool whose memory the test keeps mapped (`map`), to fill and read."""

    def __init__(self, conn, width, height, shm_format=XRGB8888, name="kiln-test-buffer"):
        self.width, self.height, self.format = width, height, shm_format
        size = width * height * 4
        fd = os.memfd_create(name, os.MFD_CLOEXEC)
        os.ftruncate(fd, size)
        self.map = mmap.mmap(fd, size)
        shm = conn.bind("wl_shm", 1)
        pool = conn.new_id("wl_shm_pool")  # ids are taken in the order they are sent
        conn.send(shm, 0, ("n", pool), ("i", size), fds=[fd])
        os.close(fd)
        self.obj = conn.create("wl_buffer", pool, 0, ("i", 0), ("i", width), ("i", height), ("i", width * 4),
                               ("u", shm_format))


def configure_and_map(conn, surface, xdg_surface, width, height, color, shm_format=XRGB8888):
    """An xdg_surface (its role object already made) through its first configure, then mapped with one buffer of
    `color`."""
    conn.send(surface, 6)  # commit: ask for the first configure
    event = conn.dispatch_until(lambda e: e.obj == xdg_surface and e.opcode == 0)
    conn.events.remove(event)
    conn.send(xdg_surface, 4, ("u", event.args("u")[0]))  # ack_configure
    conn.send(surface, 1, ("o", shm_buffer(conn, width, height, color, shm_format)), ("i", 0), ("i", 0))
    conn.send(surface, 2, ("i", 0), ("i", 0), ("i", width), ("i", height))
    conn.send(surface, 6)
    conn.roundtrip()


def expect_protocol_error(conn, timeout=5.0):
    """Waits for the protocol error the compositor answers the requests sent so far with; returns it (a
    ProtocolError), or raises AssertionError when none comes."""
    try:
        conn.roundtrip(timeout)
    except ProtocolError as error:
        return error
    raise AssertionError("no protocol error came")


class Toplevel:
    """An xdg toplevel: configured, and mapped with a one-colour shm buffer by map()."""

    def __init__(self, conn, title="kiln wire test"):
        self.conn = conn
        self.compositor = conn.bind("wl_compositor", 4)
        self.wm_base = conn.bind("xdg_wm_base", 1)
        self.surface = conn.create("wl_surface", self.compositor, 0)
        self.xdg_surface = conn.create("xdg_surface", self.wm_base, 2, ("o", self.surface))
        self.toplevel = conn.create("xdg_toplevel", self.xdg_surface, 1)
        conn.send(self.toplevel, 2, ("s", title))  # set_title

    def commit(self):
        self.conn.send(self.surface, 6)

    def wait_configure(self):
        """Waits for the next xdg_surface.configure, acknowledges it and returns its serial."""
        event = self.conn.dispatch_until(lambda e: e.obj == self.xdg_surface and e.opcode == 0)
        self.conn.events.remove(event)
        serial = event.args("u")[0]
        self.conn.send(self.xdg_surface, 4, ("u", serial))
        return serial

    def map(self, width, height, color=0xff336699):
        buffer = shm_buffer(self.conn, width, height, color)
        self.wait_configure()
        self.conn.send(self.surface, 1, ("o", buffer), ("i", 0), ("i", 0))
        self.conn.send(self.surface, 2, ("i", 0), ("i", 0), ("i", width), ("i", height))
        self.commit()
        self.conn.roundtrip()
