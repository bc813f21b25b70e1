#!/usr/bin/env python3
"""ext_data_control_manager_v1 on headless kiln, with two wire clients and no window or focus: what one sets as the
selection (and the primary selection) the other is offered with its MIME types and reads through a pipe; wl-paste
(wlr-data-control) reads it too, and what wl-copy sets is offered over ext-data-control, so both act on the seat's one
selection; a replaced source is cancelled; a null selection or a destroyed source clears it. Errors: a source set
twice is used_source, an offer after set_selection is invalid_offer. `--restrict data-control` hides both
data-control globals from a client kiln did not start."""
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import wayland_wire  # noqa: E402
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, expect_protocol_error  # noqa: E402

MANAGER = "ext_data_control_manager_v1"
TEXT = "text/plain;charset=utf-8"
wayland_wire.FD_EVENTS[("ext_data_control_source_v1", 0)] = 1  # send: the fd to write into
DATA_OFFER, SELECTION, FINISHED, PRIMARY = 0, 1, 2, 3  # device events
SEND, CANCELLED = 0, 1                                 # source events
OFFER = 0                                               # offer event


class Client:
    def __init__(self, kiln):
        self.conn = Connection(kiln.client_env)
        self.manager = self.conn.bind(MANAGER, 1)
        seat = self.conn.bind("wl_seat", 1)
        self.device = self.conn.create("ext_data_control_device_v1", self.manager, 1, ("o", seat))

    def source(self, *mime_types):
        source = self.conn.create("ext_data_control_source_v1", self.manager, 0)
        for mime in mime_types:
            self.conn.send(source, 0, ("s", mime))  # offer
        return source

    def set(self, source, primary=False):
        self.conn.send(self.device, 2 if primary else 0, ("o", source))  # set_primary_selection / set_selection

    def selection(self, primary=False):
        """Waits for the next (primary) selection event; returns (offer or 0, its MIME types)."""
        opcode = PRIMARY if primary else SELECTION
        event = self.conn.dispatch_until(lambda e: e.obj == self.device and e.opcode == opcode)
        offer = event.args("o")[0]
        mimes = []
        for e in list(self.conn.events):
            if e.obj == self.device and e.opcode == DATA_OFFER:
                self.conn.interfaces[e.args("n")[0]] = "ext_data_control_offer_v1"
            if e.obj == offer and e.opcode == OFFER:
                mimes.append(e.args("s")[0])
        self.conn.events = [e for e in self.conn.events
                            if not (e.obj == offer or (e.obj == self.device and e.opcode in (DATA_OFFER, opcode)))]
        return offer, mimes

    def serve(self, source, data):
        """Answers the next send of `source` with `data`; returns the MIME type asked for."""
        event = self.conn.dispatch_until(lambda e: e.obj == source and e.opcode == SEND)
        self.conn.events.remove(event)
        mime = event.args("s")[0]
        fd = event.fds[0]
        os.write(fd, data)
        os.close(fd)
        return mime

    def close(self):
        self.conn.close()


def read_offer(reader, writer, source, offer, mime, data):
    """reader asks `offer` for `mime` through a pipe; writer's `source` answers with `data`; returns what arrived."""
    read_end, write_end = os.pipe()
    reader.conn.send(offer, 0, ("s", mime), fds=[write_end])  # receive
    os.close(write_end)
    reader.conn.roundtrip()
    asked = writer.serve(source, data)
    chunks = []
    while chunk := os.read(read_end, 4096):
        chunks.append(chunk)
    os.close(read_end)
    return asked, b"".join(chunks)


def round_trips(kiln):
    writer, reader = Client(kiln), Client(kiln)
    offer, _ = reader.selection()
    check(offer == 0, "a new device is told there is no selection yet")
    offer, _ = reader.selection(primary=True)
    check(offer == 0, "nor a primary selection")

    copied = writer.source(TEXT, "TEXT")
    writer.set(copied)
    offer, mimes = reader.selection()
    check(offer != 0 and mimes == [TEXT, "TEXT"], f"the other client is offered the selection with its types ({mimes})")
    asked, got = read_offer(reader, writer, copied, offer, TEXT, b"copied with ext-data-control")
    check(asked == TEXT and got == b"copied with ext-data-control",
          f"copy/paste round trip between two clients, no focus needed ({asked}, {got!r})")

    selected = writer.source(TEXT)
    writer.set(selected, primary=True)
    offer, mimes = reader.selection(primary=True)
    check(offer != 0 and mimes == [TEXT], "the primary selection is offered too")
    _, got = read_offer(reader, writer, selected, offer, TEXT, b"middle-click text")
    check(got == b"middle-click text", f"primary selection round trip ({got!r})")

    if shutil.which("wl-paste"):
        paste = kiln.spawn(["wl-paste", "--no-newline"])
        writer.serve(copied, b"copied with ext-data-control")
        out, _ = paste.communicate(timeout=20)
        check(out == b"copied with ext-data-control",
              f"wl-paste (wlr-data-control) reads the selection set over ext-data-control ({out!r})")
        copy = kiln.spawn(["wl-copy", "--foreground", "from wl-copy"])
        offer, mimes = reader.selection()
        check(TEXT in mimes, f"wl-copy's selection is offered over ext-data-control ({mimes})")
        writer.conn.dispatch_until(lambda e: e.obj == copied and e.opcode == CANCELLED)
        check(True, "the replaced ext source is cancelled")
        read_end, write_end = os.pipe()
        reader.conn.send(offer, 0, ("s", TEXT), fds=[write_end])
        os.close(write_end)
        reader.conn.roundtrip()
        got = os.read(read_end, 4096)
        os.close(read_end)
        check(got == b"from wl-copy", f"and reads wl-copy's text ({got!r})")
        copy.kill()
        copy.wait()
        offer, _ = reader.selection()
        check(offer == 0, "wl-copy gone, its selection goes with it")
    else:
        print("skip: wl-clipboard is not installed: no interplay with wlr-data-control checked")
        replacement = writer.source(TEXT)
        writer.set(replacement)
        writer.conn.dispatch_until(lambda e: e.obj == copied and e.opcode == CANCELLED)
        check(True, "the replaced source is cancelled")
        reader.selection()

    again = writer.source(TEXT)
    writer.set(again)
    offer, _ = reader.selection()
    writer.set(0)
    offer, _ = reader.selection()
    check(offer == 0, "set_selection(null) clears the selection")
    last = writer.source(TEXT)
    writer.set(last)
    offer, _ = reader.selection()
    writer.conn.send(last, 1)  # destroy the source that is the selection
    offer, _ = reader.selection()
    check(offer == 0, "destroying the selection's source clears it")
    writer.close()
    reader.close()


def errors(kiln):
    client = Client(kiln)
    source = client.source(TEXT)
    client.set(source)
    client.conn.roundtrip()
    client.set(source, primary=True)
    error = expect_protocol_error(client.conn)
    check(f"ext_data_control_device_v1@{client.device}: 1 " in str(error),
          f"a source used twice is used_source ({error})")
    client.close()

    client = Client(kiln)
    source = client.source(TEXT)
    client.set(source)
    client.conn.send(source, 0, ("s", "TEXT"))
    error = expect_protocol_error(client.conn)
    check(f"ext_data_control_source_v1@{source}: 1 " in str(error),
          f"an offer after set_selection is invalid_offer ({error})")
    client.close()


def restricted():
    need("wayland-info")
    scratch = tempfile.mkdtemp(prefix="kiln-data-control-")
    try:
        seen = Path(scratch) / "globals"
        with Kiln("--restrict", "data-control", "-s", f"wayland-info > {seen}.part; mv {seen}.part {seen}") as kiln:
            with Connection(kiln.client_env) as conn:
                check(MANAGER not in conn.globals and "zwlr_data_control_manager_v1" not in conn.globals,
                      "--restrict data-control hides both data-control globals from a client kiln did not start")
            kiln.wait_for(lambda: seen.exists(), "the -s command's wayland-info")
            text = seen.read_text()
            check(f"'{MANAGER}'" in text and "'zwlr_data_control_manager_v1'" in text,
                  "a command kiln started still sees both")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    with Kiln() as kiln:
        check(Connection(kiln.client_env).globals.get(MANAGER, (0, 0))[1] == 1, f"kiln offers {MANAGER} version 1")
        round_trips(kiln)
        errors(kiln)
        check(kiln.alive(), "kiln runs on")
    restricted()


run_test(main)
