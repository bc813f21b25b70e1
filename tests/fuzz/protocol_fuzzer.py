#!/usr/bin/env python3
"""Protocol fuzzer: clients send kiln seeded random but well-framed requests and reconnect whenever they are cut off;
kiln must stay alive and answering, and a bystander client must keep getting frames throughout.

Requests follow the protocol XML signatures (valid header and size, object ids the client created, new ids in
sequence, fds where the signature has them) with random opcodes and argument values; a few break the signature on
purpose (unknown opcodes, wrong object types). About one connection in four is instead the redraw scenario
(redraw_scenario.py): toplevels mapped with wl_shm buffers and redrawn while their scale, transform, regions,
viewports, damage and subsurfaces change, which random requests never reach. KILN_FUZZ_SECONDS bounds the run
(default 30), KILN_FUZZ_SEED picks the seed (default: random, printed). The request scripts in corpus/protocol/*.json
(each a minimised input that once broke kiln) are replayed first, then the redraw sequence that once leaked.
"""
import json
import os
import random
import re
import struct
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[0] / "lib"))
sys.path.insert(0, str(HERE))
from kiln_harness import Kiln, check, client_binary, rgb, run_test  # noqa: E402
import wire  # noqa: E402
from redraw_scenario import RedrawClient  # noqa: E402

SECONDS = float(os.environ.get("KILN_FUZZ_SECONDS", "30"))
BYSTANDER_COLOR = "3366cc"
BYSTANDER_FRAMES = 120
BYSTANDER_DEADLINE = 30.0  # seconds for one round of frames; far beyond 120 frames at 60 Hz, even under ASan
EDGE_INTEGERS = [0, 1, 2, 3, -1, 0x7FFFFFFF, -0x80000000, 4095, 4096, 16384, 16385, 65535, 0x10000]


class Stats:
    def __init__(self):
        self.connections = self.requests = self.protocol_errors = self.cut_off = self.bystander_rounds = 0
        self.redraw_sessions = self.redraw_maps = self.redraw_commits = self.redraw_shown = 0
        self.redraw_errors = []  # protocol errors the well-formed redraw client got: printed, for a look


class FuzzClient:
    """One connection's worth of random requests, driven by `rng`."""

    def __init__(self, path, rng, interfaces, stats):
        self.rng, self.interfaces, self.stats = rng, interfaces, stats
        self.conn = wire.Connection(path)
        self.objects = {1: "wl_display"}
        self.versions = {1: 1}
        self.next_id = 2
        self.globals = {}
        self.error = None

    def new_id(self, interface, version=1):
        object_id = self.next_id
        self.next_id += 1
        self.objects[object_id] = interface
        self.versions[object_id] = version
        return object_id

    def handle(self, events):
        for object_id, opcode, body in events:
            interface = self.objects.get(object_id)
            if interface == "wl_display" and opcode == 0:
                failing, code = struct.unpack_from("<II", body)
                message, _ = wire.decode_string(body, 8)
                self.error = f"{self.objects.get(failing, '?')}#{failing} error {code}: {message!r}"
            elif interface == "wl_registry" and opcode == 0:
                (name,) = struct.unpack_from("<I", body)
                iface, pos = wire.decode_string(body, 4)
                (version,) = struct.unpack_from("<I", body, pos)
                self.globals[name] = (iface.decode(), version)
            elif interface == "wl_registry" and opcode == 1:
                self.globals.pop(struct.unpack_from("<I", body)[0], None)

    def drain(self):
        while not self.conn.closed:
            events = self.conn.receive(block=False)
            if not events:
                return
            self.handle(events)

    def read_rest(self):
        """After a failed send: what kiln wrote before closing (the error event, usually) is still readable."""
        try:
            while not self.conn.eof:
                self.handle(self.conn.receive(block=True))
        except (TimeoutError, OSError):
            return

    def roundtrip(self):
        """wl_display.sync and wait for its done; kiln must answer (or cut us off) within the connection timeout."""
        callback = self.new_id("wl_callback")
        if not self.conn.send(wire.frame(1, 0, struct.pack("<I", callback))):
            return False
        while not self.conn.closed:
            events = self.conn.receive(block=True)
            self.handle(events)
            if any(object_id == callback for object_id, _, _ in events):
                return True
        return False

    def start(self):
        registry = self.new_id("wl_registry")
        self.conn.send(wire.frame(1, 1, struct.pack("<I", registry)))
        return self.roundtrip()

    # Argument values: mostly plausible, often at the edges, sometimes anything.
    def integer(self, arg):
        r = self.rng.random()
        if arg.enum and r < 0.7:
            return self.rng.randrange(0, 10)
        if r < 0.35:
            return self.rng.choice(EDGE_INTEGERS)
        if r < 0.85:
            return self.rng.randrange(-16, 2048)
        return self.rng.randrange(-2**31, 2**31)

    def text(self):
        n = self.rng.choice([0, 1, 4, 16, 64, 200])
        alphabet = b"abcdefghijklmnopqrstuvwxyz_-./0123456789 \xff\x01"
        return bytes(self.rng.choice(alphabet) for _ in range(n))

    def object_of(self, arg):
        """An object of the argument's interface; None when there is none yet (the request waits for one)."""
        r = self.rng.random()
        if arg.nullable and r < 0.1:
            return 0
        if r < 0.99:
            matching = [i for i, name in self.objects.items() if arg.interface in (None, name)]
            return self.rng.choice(matching) if matching else None
        return self.rng.choice([0, self.rng.choice(list(self.objects)), self.next_id + 5, 0xFF000001])

    def fd(self):
        r = self.rng.random()
        if r < 0.9:
            fd = os.memfd_create("kiln-fuzz", os.MFD_CLOEXEC)
            os.ftruncate(fd, self.rng.choice([0, 1, 4096, 65536, 1 << 20, self.rng.randrange(0, 1 << 22)]))
            return fd
        if r < 0.95:
            read_end, write_end = os.pipe()
            os.close(write_end)
            return read_end
        return os.open("/dev/null", os.O_RDONLY | os.O_CLOEXEC)

    def encode(self, message):
        body, fds, created = b"", [], []
        for arg in message.args:
            if arg.type in ("int", "fixed", "uint"):
                body += struct.pack("<I", self.integer(arg) & 0xFFFFFFFF)
            elif arg.type == "string":
                body += wire.encode_string(None if arg.nullable and self.rng.random() < 0.1 else self.text())
            elif arg.type == "array":
                body += wire.encode_array(self.rng.randbytes(self.rng.choice([0, 4, 16, 100])))
            elif arg.type == "object":
                object_id = self.object_of(arg)
                if object_id is None:
                    for fd in fds:
                        os.close(fd)
                    return None
                body += struct.pack("<I", object_id)
            elif arg.type == "fd":
                fds.append(self.fd())
            elif arg.type == "new_id":
                if arg.interface is None:  # wl_registry.bind: any interface, any version
                    body += wire.encode_string(self.text()) + struct.pack("<I", self.rng.randrange(0, 8))
                if self.rng.random() < 0.01:
                    body += struct.pack("<I", self.rng.choice([0, 1, self.next_id + 3, 0xFF000000]))
                else:
                    object_id = self.next_id
                    body += struct.pack("<I", object_id)
                    created.append((object_id, arg.interface or "?"))
        return body, fds, created

    def bind(self):
        known = [(name, iface, version) for name, (iface, version) in sorted(self.globals.items())
                 if iface in self.interfaces]
        if not known:
            return None
        name, iface, version = self.rng.choice(known)
        version = self.rng.randint(1, min(version, self.interfaces[iface].version))
        object_id = self.new_id(iface, version)
        return wire.frame(2, 0, struct.pack("<I", name) + wire.encode_string(iface.encode()) +
                          struct.pack("<II", version, object_id)), []

    def request(self):
        """A request on a random object: its own signature with random values, or now and then a broken one."""
        targets = [i for i, name in sorted(self.objects.items())
                   if name in self.interfaces and self.interfaces[name].requests]
        target = self.rng.choice(targets)
        interface = self.interfaces[self.objects[target]]
        version = self.versions.get(target, 1)
        r = self.rng.random()
        if r < 0.01:  # an opcode the interface does not have
            opcode = len(interface.requests) + self.rng.randrange(0, 4)
            return wire.frame(target, opcode, self.rng.randbytes(4 * self.rng.randrange(0, 8))), []
        if interface.name == "wl_registry" and r < 0.95:
            return self.bind()  # a random wl_registry.bind names no global: most of them go through bind()
        usable = [i for i, m in enumerate(interface.requests) if m.since <= version or r < 0.02]
        if not usable:
            return None
        opcode = self.rng.choice(usable)
        message = interface.requests[opcode]
        encoded = self.encode(message)
        if encoded is None:
            return None
        body, fds, created = encoded
        try:
            framed = wire.frame(target, opcode, body)
        except ValueError:
            for fd in fds:
                os.close(fd)
            return None
        for object_id, name in created:
            self.next_id = object_id + 1
            self.objects[object_id] = name
            self.versions[object_id] = version
        if message.destructor:
            self.objects.pop(target, None)
        return framed, fds

    def run(self, requests):
        """Sends up to `requests` requests; returns when done or cut off."""
        for _ in range(requests):
            made = self.bind() if self.rng.random() < 0.15 else self.request()
            if made is None:
                continue
            message, fds = made
            sent = self.conn.send(message, fds)
            for fd in fds:
                os.close(fd)
            if not sent:
                break
            self.stats.requests += 1
            self.drain()
            if self.conn.closed:
                break
            if self.rng.random() < 0.03 and not self.roundtrip():
                break
        if self.conn.closed:
            self.read_rest()
            if self.error:
                self.stats.protocol_errors += 1
            else:
                self.stats.cut_off += 1
        self.conn.close()


class Bystander:
    """A well-behaved shm client run in rounds of BYSTANDER_FRAMES frames; each round must finish, and in time."""

    def __init__(self, kiln, stats):
        self.kiln, self.stats, self.proc = kiln, stats, None

    def check(self):
        if self.proc is not None and self.proc.poll() is not None:
            output = self.proc.stdout.read().decode(errors="replace")
            if self.proc.returncode != 0:
                raise AssertionError(f"the bystander failed with {self.proc.returncode}:\n{output}")
            self.stats.bystander_rounds += 1
            self.proc = None
        if self.proc is None:
            self.proc = self.kiln.spawn([client_binary("kiln-demo-shm"), "--size", "200x150", "--color",
                                         BYSTANDER_COLOR, "--frames", str(BYSTANDER_FRAMES)])
            self.started = time.monotonic()
        elif time.monotonic() - self.started > BYSTANDER_DEADLINE:
            raise AssertionError(f"the bystander got fewer than {BYSTANDER_FRAMES} frames in {BYSTANDER_DEADLINE} s")

    def finish(self):
        deadline = time.monotonic() + BYSTANDER_DEADLINE
        while self.proc is not None and self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        self.check()
        self.proc.kill()


def fuzz(kiln, interfaces, seed, stats, seconds=None, connections=None):
    """Random sessions from `seed` until the time or connection budget runs out."""
    rng = random.Random(seed)
    bystander = Bystander(kiln, stats)
    path = Path(kiln.runtime) / kiln.socket
    deadline = time.monotonic() + seconds if seconds is not None else None
    done = 0
    while (deadline is None or time.monotonic() < deadline) and (connections is None or done < connections):
        bystander.check()
        if not kiln.alive():
            raise AssertionError(f"kiln died (seed {seed}, connection {done}):\n{kiln.logs()}")
        try:
            stats.connections += 1
            if rng.random() < 0.25:
                redraw = RedrawClient(path, rng, interfaces, stats)
                if redraw.connect():
                    redraw.run(rng.choice([20, 60, 150]))
            else:
                client = FuzzClient(path, rng, interfaces, stats)
                if client.start():
                    client.run(rng.choice([5, 20, 80, 300]))
        except TimeoutError:
            if kiln.alive():
                raise AssertionError(f"kiln stopped answering wl_display.sync (seed {seed}, connection {done})")
        except (ConnectionRefusedError, FileNotFoundError):
            raise AssertionError(f"kiln refused a connection (seed {seed}, connection {done}):\n{kiln.logs()}")
        done += 1
    bystander.finish()
    check(kiln.alive(), f"kiln is alive after seed {seed}: {done} connections")


def replay(kiln, interfaces, script):
    """Sends a corpus script's requests in order: ["bind", interface, version, "@name"] or [object, request, args...]
    where "@name" names a new object, a bare name an object made before, null a null object or string."""
    client = FuzzClient(Path(kiln.runtime) / kiln.socket, random.Random(0), interfaces, Stats())
    check(client.start(), f"{script.name}: connected")
    names = {}
    for step in json.loads(script.read_text())["requests"]:
        if step[0] == "bind":
            _, iface, version, new = step
            name = next(n for n, (i, _) in client.globals.items() if i == iface)
            names[new[1:]] = client.new_id(iface, version)
            message = wire.frame(2, 0, struct.pack("<I", name) + wire.encode_string(iface.encode()) +
                                 struct.pack("<II", version, names[new[1:]]))
        else:
            target = names[step[0]]
            interface = client.interfaces[client.objects[target]]
            opcode = next(i for i, m in enumerate(interface.requests) if m.name == step[1])
            body = b""
            for arg, value in zip(interface.requests[opcode].args, step[2:]):
                if arg.type == "new_id":
                    names[value[1:]] = client.new_id(arg.interface)
                    body += struct.pack("<I", names[value[1:]])
                elif arg.type == "object":
                    body += struct.pack("<I", names[value] if value is not None else 0)
                elif arg.type == "string":
                    body += wire.encode_string(value.encode() if value is not None else None)
                else:
                    body += struct.pack("<I", value & 0xFFFFFFFF)
            message = wire.frame(target, opcode, body)
        if not client.conn.send(message):
            # A script that expects a protocol error may be cut off before its last request: that is the error.
            check(bool(json.loads(script.read_text()).get("expect_error")), f"{script.name}: kiln took {step[:2]}")
            break
    expected = json.loads(script.read_text()).get("expect_error")
    answered = client.roundtrip()
    if expected:
        client.read_rest()
        check(client.error is not None and expected in client.error,
              f"{script.name}: the client got the protocol error '{expected}' ({client.error})")
    else:
        check(answered and client.error is None, f"{script.name}: kiln answered after the script ({client.error})")
    client.conn.close()
    check(kiln.alive(), f"{script.name}: kiln is alive")


def main():
    interfaces = wire.load_interfaces(wire.system_protocol_files([HERE.parents[1] / "protocols"]))
    check("xdg_wm_base" in interfaces and "wl_compositor" in interfaces, f"{len(interfaces)} interfaces loaded")
    seed = int(os.environ.get("KILN_FUZZ_SEED", random.SystemRandom().randrange(1 << 32)))
    stats = Stats()
    start = time.monotonic()
    # Locking the session, resizing or turning off the output outlive the client that asked (a dead locker leaves
    # the session locked by design): the bystander would be hidden for good. Those globals stay out of reach.
    lasting = ["--restrict", "session-lock", "--restrict", "output-management", "--restrict", "output-power"]
    with Kiln(*lasting, size="640x480", timeout=60) as kiln:
        for script in sorted((HERE / "corpus" / "protocol").glob("*.json")):
            replay(kiln, interfaces, script)
        known = RedrawClient(Path(kiln.runtime) / kiln.socket, random.Random(0), interfaces, Stats())
        check(known.connect() and known.opaque_switch_at_destroy() and known.error is None,
              f"redraw: a synchronized subsurface destroyed with an opaque buffer cached ({known.error})")
        known.conn.close()
        print(f"protocol fuzzer: seed {seed} (KILN_FUZZ_SEED={seed} repeats it), {SECONDS:.0f} s", flush=True)
        fuzz(kiln, interfaces, seed, stats, seconds=SECONDS)
        # With every fuzz client gone, the bystander is on screen again.
        kiln.spawn([client_binary("kiln-demo-shm"), "--size", "200x150", "--color", BYSTANDER_COLOR])
        kiln.wait_for(lambda: kiln.screenshot().count(rgb(BYSTANDER_COLOR), step=2) > 2000, "the bystander on screen",
                      timeout=30)
        status, _ = kiln.stop()
    print(f"protocol fuzzer: {stats.requests} requests over {stats.connections} connections in "
          f"{time.monotonic() - start:.0f} s; {stats.protocol_errors} ended by a protocol error, {stats.cut_off} cut "
          f"off otherwise; bystander drew {stats.bystander_rounds} rounds of {BYSTANDER_FRAMES} frames")
    print(f"redraw scenario: {stats.redraw_sessions} sessions mapped toplevels {stats.redraw_maps} times, "
          f"{stats.redraw_commits} redraws, {stats.redraw_shown} surfaces entered an output; "
          f"{len(stats.redraw_errors)} protocol errors")
    for error in sorted(set(re.sub(r"\d+", "N", e) for e in stats.redraw_errors)):
        print(f"  redraw client's protocol error: {error}")
    check(status == 0, f"kiln exits 0 on SIGTERM after fuzzing (got {status})")
    check(stats.requests > 0 and stats.bystander_rounds > 0, "requests were sent and the bystander kept drawing")
    check(stats.redraw_commits > 0 and stats.redraw_shown > 0, "the redraw scenario redrew surfaces kiln showed")


run_test(main)
