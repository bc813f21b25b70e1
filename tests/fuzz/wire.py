"""The Wayland wire format from the client side: protocol XML signatures, request encoding, event framing.

Python 3 standard library only; used by protocol_fuzzer.py to speak to kiln without libwayland-client, so requests
can carry any argument bytes while their framing (object id, size, opcode, fd count) stays valid.
"""
import array
import os
import socket
import struct
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HEADER = struct.Struct("<II")
MAX_MESSAGE = 4096  # libwayland's limit for one message


class Arg:
    def __init__(self, element):
        self.name = element.get("name")
        self.type = element.get("type")
        self.interface = element.get("interface")
        self.nullable = element.get("allow-null") == "true"
        self.enum = element.get("enum") is not None


class Message:
    def __init__(self, element):
        self.name = element.get("name")
        self.destructor = element.get("type") == "destructor"
        self.since = int(element.get("since", "1"))
        self.args = [Arg(a) for a in element.findall("arg")]


class Interface:
    def __init__(self, element):
        self.name = element.get("name")
        self.version = int(element.get("version", "1"))
        self.requests = [Message(m) for m in element.findall("request")]
        self.events = [Message(m) for m in element.findall("event")]


def load_interfaces(xml_files):
    """Every interface in the given protocol XML files, by name (first definition wins)."""
    interfaces = {}
    for path in xml_files:
        try:
            root = ET.parse(path).getroot()
        except (ET.ParseError, OSError):
            continue
        for element in root.findall("interface"):
            interfaces.setdefault(element.get("name"), Interface(element))
    return interfaces


def system_protocol_files(extra_dirs=()):
    files = [Path("/usr/share/wayland/wayland.xml")]
    for base in [Path("/usr/share/wayland-protocols"), *map(Path, extra_dirs)]:
        if base.is_dir():
            files += sorted(base.rglob("*.xml"))
    return [f for f in files if f.exists()]


def pad(data):
    return data + b"\0" * (-len(data) % 4)


def encode_string(text):
    """A string argument; None is the null string."""
    if text is None:
        return struct.pack("<I", 0)
    raw = text + b"\0"
    return struct.pack("<I", len(raw)) + pad(raw)


def encode_array(data):
    return struct.pack("<I", len(data)) + pad(data)


def frame(object_id, opcode, body):
    size = HEADER.size + len(body)
    if size > MAX_MESSAGE:
        raise ValueError("message too large")
    return HEADER.pack(object_id, (size << 16) | opcode) + body


class Connection:
    """One client socket: sends framed messages with fds, and splits what arrives into (id, opcode, body) events."""

    def __init__(self, path, timeout=10.0):
        self.timeout = timeout
        # libwayland binds the socket before it listens: a connect in between is refused, so retry briefly.
        for attempt in range(100):
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(timeout)
            try:
                self.sock.connect(str(path))
                break
            except ConnectionRefusedError:
                self.sock.close()
                if attempt == 99:
                    raise
                time.sleep(0.02)
        self.buffer = b""
        self.closed = False  # by kiln or by us
        self.eof = False     # kiln's end is closed and everything it sent has been read

    def close(self):
        self.closed = True
        self.sock.close()

    def send(self, message, fds=()):
        """False when kiln has closed the connection."""
        self.sock.settimeout(self.timeout)
        try:
            if fds:
                self.sock.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
            else:
                self.sock.sendall(message)
            return True
        except (BrokenPipeError, ConnectionResetError):
            self.closed = True
            return False

    def receive(self, block):
        """Reads what is there (waiting up to the timeout when `block`); returns complete events. Sets closed on EOF."""
        self.sock.settimeout(self.timeout if block else 0.0)
        try:
            data, ancillary, _, _ = self.sock.recvmsg(65536, socket.CMSG_SPACE(28 * 4))
        except (BlockingIOError, InterruptedError):
            return []
        except socket.timeout:
            raise TimeoutError("no event from kiln") from None
        except ConnectionResetError:
            data, ancillary = b"", []
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds = array.array("i")
                fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
                for fd in fds:  # keymaps and the like: not needed here
                    os.close(fd)
        if not data:
            self.closed = self.eof = True
            return []
        self.buffer += data
        events = []
        while len(self.buffer) >= HEADER.size:
            object_id, word = HEADER.unpack_from(self.buffer)
            size = word >> 16
            if size < HEADER.size:
                raise ValueError(f"kiln sent a malformed header (size {size})")
            if len(self.buffer) < size:
                break
            events.append((object_id, word & 0xFFFF, self.buffer[HEADER.size:size]))
            self.buffer = self.buffer[size:]
        return events


def decode_string(body, pos):
    (length,) = struct.unpack_from("<I", body, pos)
    pos += 4
    text = body[pos:pos + length - 1] if length else None
    return text, pos + (length + 3) // 4 * 4

