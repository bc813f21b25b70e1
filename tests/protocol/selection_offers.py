#!/usr/bin/env python3
"""Selections reach the focused client on headless kiln: a client gets the clipboard's wl_data_offer and the
primary selection's offer when it gains the keyboard, when it makes its data devices while focused, and when
another client (a clipboard manager, through wlr-data-control) changes either while it is focused; a client that
lost the keyboard gets no more; the focused client can read both, the bytes coming from the source's client, and
can set both with its keyboard serial. A client without the keyboard cannot set either with a serial it never got
(serial 0, as some test suites' helpers send): that would let any client replace the clipboard at any time."""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402

MIME = "text/plain;charset=utf-8"
CLIPBOARD, PRIMARY = "clipboard", "primary"


class Sink:
    """A client with a wl_data_device and a primary-selection device on the seat, made now or later."""

    def __init__(self, kiln, devices_first=True):
        self.conn = Connection(kiln.client_env)
        self.seat = self.conn.bind("wl_seat", 5)
        self.keyboard = self.conn.create("wl_keyboard", self.seat, 1)
        self.data = self.primary = None
        if devices_first:
            self.make_devices()

    def make_devices(self):
        conn = self.conn
        self.data = conn.create("wl_data_device", conn.bind("wl_data_device_manager", 3), 1, ("o", self.seat))
        self.primary = conn.create("zwp_primary_selection_device_v1",
                                   conn.bind("zwp_primary_selection_device_manager_v1", 1), 1, ("o", self.seat))

    def map(self, title):
        self.window = Toplevel(self.conn, title)
        self.window.commit()
        self.window.map(100, 100)
        enter = self.conn.dispatch_until(lambda e: e.obj == self.keyboard and e.opcode == 1)
        self.window_enter_serial = enter.args("u")[0]

    def selection(self, which, what, timeout=None):
        """Waits for the selection event of `which`; returns the offer's id (0: no selection) and its mime types."""
        device, opcode = (self.data, 5) if which == CLIPBOARD else (self.primary, 1)
        conn = self.conn
        try:
            event = conn.dispatch_until(lambda e: e.obj == device and e.opcode == opcode, timeout)
        except AssertionError:
            raise AssertionError(f"{what}: no {which} selection event came")
        conn.events.remove(event)
        offer = event.args("o")[0]
        mimes = [e.args("s")[0] for e in conn.events if e.obj == offer and e.opcode == 0]
        return offer, mimes

    def quiet(self, what):
        """No selection event for either device after a round trip."""
        self.conn.roundtrip()
        got = [e for e in self.conn.events if (e.obj, e.opcode) in ((self.data, 5), (self.primary, 1))]
        check(got == [], f"{what}: no selection event ({got})")

    def read(self, which, offer):
        read_end, write_end = os.pipe()
        interface = "wl_data_offer" if which == CLIPBOARD else "zwp_primary_selection_offer_v1"
        self.conn.interfaces[offer] = interface
        self.conn.send(offer, 1 if which == CLIPBOARD else 0, ("s", MIME), fds=[write_end])
        os.close(write_end)
        self.conn.roundtrip()
        return read_end

    def drop_events(self):
        for event in self.conn.events:
            for fd in event.fds:
                os.close(fd)
        self.conn.events = []

    def close(self):
        self.conn.close()


def set_own(client, which, serial):
    """`client` sets `which` selection to a source of its own offering text/x-own, with `serial`."""
    conn = client.conn
    if which == CLIPBOARD:
        source = conn.create("wl_data_source", conn.bind("wl_data_device_manager", 3), 0)
        conn.send(source, 0, ("s", "text/x-own"))
        conn.send(client.data, 1, ("o", source), ("u", serial))
    else:
        source = conn.create("zwp_primary_selection_source_v1",
                             conn.bind("zwp_primary_selection_device_manager_v1", 1), 0)
        conn.send(source, 0, ("s", "text/x-own"))
        conn.send(client.primary, 0, ("o", source), ("u", serial))
    conn.roundtrip()


class Manager:
    """A clipboard manager: sets either selection through wlr-data-control and serves its bytes."""

    def __init__(self, kiln):
        self.conn = Connection(kiln.client_env)
        self.control = self.conn.bind("zwlr_data_control_manager_v1", 2)
        seat = self.conn.bind("wl_seat", 5)
        self.device = self.conn.create("zwlr_data_control_device_v1", self.control, 1, ("o", seat))
        self.sources = {}

    def set(self, which, text):
        source = self.conn.create("zwlr_data_control_source_v1", self.control, 0)
        self.conn.send(source, 0, ("s", MIME))
        self.conn.send(self.device, 0 if which == CLIPBOARD else 2, ("o", source))
        self.conn.roundtrip()
        self.sources[source] = text

    def serve(self):
        """Answers one send request with its source's text."""
        event = self.conn.dispatch_until(lambda e: e.interface == "zwlr_data_control_source_v1" and e.opcode == 0)
        self.conn.events.remove(event)
        fd = event.fds[0]
        os.write(fd, self.sources[event.obj].encode())
        os.close(fd)


def read_all(fd):
    data = b""
    while chunk := os.read(fd, 4096):
        data += chunk
    os.close(fd)
    return data.decode()


def main():
    with Kiln() as kiln:
        manager = Manager(kiln)
        manager.set(CLIPBOARD, "copied")
        manager.set(PRIMARY, "selected")

        # Gaining the keyboard brings both selections.
        sink = Sink(kiln)
        sink.map("sink")
        for which in (CLIPBOARD, PRIMARY):
            offer, mimes = sink.selection(which, f"{which} on focus")
            check(offer != 0 and MIME in mimes, f"{which}: the focused client gets an offer of {MIME} ({mimes})")
        # The focused client reads them; the bytes come from the manager.
        for which, text in ((CLIPBOARD, "copied"), (PRIMARY, "selected")):
            sink.drop_events()
            manager.set(which, text)
            offer, _ = sink.selection(which, f"{which} changed while focused")
            check(offer != 0, f"{which}: a selection set while the client is focused reaches it at once")
            fd = sink.read(which, offer)
            manager.serve()
            got = read_all(fd)
            check(got == text, f"{which}: the focused client reads '{text}' from the manager ({got!r})")

        # Devices made after the keyboard came: the current selections come with them.
        late = Sink(kiln, devices_first=False)
        late.map("late devices")
        late.make_devices()
        for which in (CLIPBOARD, PRIMARY):
            offer, mimes = late.selection(which, f"{which} for devices made while focused")
            check(offer != 0 and MIME in mimes, f"{which}: devices made while focused get the selection ({mimes})")

        # The focused client sets both with its keyboard enter serial: it gets its own offers back.
        late.drop_events()
        serial = late.window_enter_serial
        for which in (CLIPBOARD, PRIMARY):
            set_own(late, which, serial)
            offer, mimes = late.selection(which, f"{which} set by the focused client")
            check(offer != 0 and "text/x-own" in mimes, f"{which}: the focused client's own selection is taken "
                  f"({mimes})")
        # The unfocused client tries with serial 0: refused, the focused client hears nothing.
        for which in (CLIPBOARD, PRIMARY):
            set_own(sink, which, 0)
            late.quiet(f"{which} set by an unfocused client with serial 0")

        # The first sink lost the keyboard to the late one: a new selection goes only to the focused client.
        sink.drop_events()
        late.drop_events()
        manager.set(CLIPBOARD, "again")
        offer, _ = late.selection(CLIPBOARD, "clipboard changed again")
        check(offer != 0, "the focused client gets the new clipboard")
        sink.quiet("the unfocused client")

        sink.close()
        late.close()
        manager.conn.close()
        check(kiln.alive(), "kiln is still running")


run_test(main)
