#!/usr/bin/env python3
"""Screen sharing end to end, as a browser does it: a private session bus, PipeWire and WirePlumber, headless kiln
with `--restrict image-copy-capture` running kiln-portal as its `-s` command, and xdg-desktop-portal (a second `-s`
command, so it has kiln's XDG_CURRENT_DESKTOP=kiln:wlroots) reading the build's kiln.portal. A D-Bus client calls org.freedesktop.portal.ScreenCast (CreateSession, SelectSources, Start,
OpenPipeWireRemote) and reads the stream with GStreamer's pipewiresrc:
- a still screen arrives pixel for pixel as grim shows the same output, also to a consumer that reconnects;
- a window animating a white square is seen moving, frame after frame, at the frame rate measured;
- kiln wrote every one of that session's frames straight into the stream's own memfd buffers: kiln-portal's line
  at the stream's end counts frames captured in place and none it copied itself (it once copied each frame from
  its own capture buffer into the PipeWire buffer: 86 % of its time at 1080p60, doc/benchmarks.md);
- with the cursor embedded the stream shows the pointer's cursor as grim does (headless kiln draws it into the
  frame); with it hidden the stream differs from grim exactly where the cursor is;
- kiln-portal's Screenshot returns a PNG equal to grim's screenshot (asked directly; through xdg-desktop-portal:
  tests/portal/screenshot_access.py);
- a kiln-portal started with `--replace --deny '*'` takes over the bus name (the first one leaves), and Start is
  then cancelled;
- a kiln-portal that kiln did not start is refused the capture globals and says so, instead of streaming.
Any missing piece of the stack (dbus-daemon, pipewire, wireplumber, xdg-desktop-portal, pipewiresrc, python3-dbus,
GStreamer's introspection data) skips the test with its name."""
import os
import re
import shutil
import struct
import zlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, Screenshot, build_dir, check, client_binary, need, run_test, skip, wait_drawn  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402
from wayland_wire import Connection  # noqa: E402

XDP = "/usr/libexec/xdg-desktop-portal"
SIZE = (320, 240)
WHITE = (255, 255, 255)


def require_stack():
    for program in ("dbus-daemon", "gdbus", "pipewire", "wireplumber", "grim"):
        need(program)
    if not os.access(XDP, os.X_OK):
        skip(f"xdg-desktop-portal is not installed ({XDP})")
    portal = build_dir() / "portal" / "kiln-portal"
    if not portal.exists():
        skip("kiln-portal was not built (needs libpipewire-0.3-dev and libsystemd-dev)")
    try:
        import dbus  # noqa: F401
        import dbus.mainloop.glib  # noqa: F401
    except ImportError:
        skip("python3-dbus is not installed")
    try:
        import gi
        gi.require_version("Gst", "1.0")
        from gi.repository import Gst
    except (ImportError, ValueError):
        skip("GStreamer's introspection data is not installed (gir1.2-gstreamer-1.0)")
    Gst.init(None)
    if Gst.ElementFactory.find("pipewiresrc") is None:
        skip("GStreamer's pipewiresrc is not installed (gstreamer1.0-pipewire)")
    if Gst.ElementFactory.find("videoconvert") is None:
        skip("GStreamer's videoconvert is not installed (gstreamer1.0-plugins-base)")
    return portal


class Stack:
    """A session bus, PipeWire and WirePlumber on a private runtime dir; their environment in .env."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="kiln-portal-test-")
        os.chmod(self.dir, 0o700)
        self.procs = []
        self.env = dict(os.environ, XDG_RUNTIME_DIR=self.dir, XDG_CONFIG_HOME=f"{self.dir}/config",
                        XDG_STATE_HOME=f"{self.dir}/state", XDG_CACHE_HOME=f"{self.dir}/cache",
                        XDG_DATA_HOME=f"{self.dir}/data", PIPEWIRE_RUNTIME_DIR=self.dir)
        for name in ("WAYLAND_DISPLAY", "DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "PIPEWIRE_REMOTE"):
            self.env.pop(name, None)

    def log(self, name):
        return open(Path(self.dir) / f"{name}.log", "w")

    def start(self, name, argv, env=None):
        proc = subprocess.Popen(argv, env=env or self.env, stdout=self.log(name), stderr=subprocess.STDOUT)
        self.procs.append((name, proc))
        return proc

    def logs(self):
        text = ""
        for name, _ in self.procs:
            path = Path(self.dir) / f"{name}.log"
            if path.exists():
                text += f"--- {name} ---\n{path.read_text(errors='replace')[-3000:]}\n"
        return text

    def __enter__(self):
        bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address"], env=self.env,
                               stdout=subprocess.PIPE, stderr=self.log("dbus-daemon"), text=True)
        self.procs.append(("dbus-daemon", bus))
        address = bus.stdout.readline().strip()
        if not address:
            raise AssertionError("dbus-daemon printed no address")
        self.env["DBUS_SESSION_BUS_ADDRESS"] = address
        self.start("pipewire", ["pipewire"])
        socket = Path(self.dir) / "pipewire-0"
        deadline = time.monotonic() + 10
        while not socket.exists():
            if time.monotonic() > deadline:
                raise AssertionError(f"pipewire did not open {socket}:\n{self.logs()}")
            time.sleep(0.05)
        self.start("wireplumber", ["wireplumber"])
        return self

    def __exit__(self, *exc):
        for name, proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        if exc[0] is not None:
            print(self.logs(), file=sys.stderr)
        shutil.rmtree(self.dir, ignore_errors=True)
        return False


class ScreenCastClient:
    """org.freedesktop.portal.ScreenCast as an application calls it, each request waited for by its Response."""

    def __init__(self, address):
        import dbus
        import dbus.mainloop.glib
        from gi.repository import GLib
        self.dbus, self.GLib = dbus, GLib
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        self.bus = dbus.bus.BusConnection(address)
        self.sender = self.bus.get_unique_name()[1:].replace(".", "_")
        self.tokens = 0
        self.portal = None

    def wait_for_portal(self, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            # Our xdg-desktop-portal, not one the bus would start from /usr/share/dbus-1/services.
            if not self.bus.name_has_owner("org.freedesktop.portal.Desktop"):
                time.sleep(0.1)
                continue
            try:
                proxy = self.bus.get_object("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop")
                props = self.dbus.Interface(proxy, "org.freedesktop.DBus.Properties")
                types = props.Get("org.freedesktop.portal.ScreenCast", "AvailableSourceTypes")
                self.portal = self.dbus.Interface(proxy, "org.freedesktop.portal.ScreenCast")
                return int(types), int(props.Get("org.freedesktop.portal.ScreenCast", "AvailableCursorModes"))
            except self.dbus.DBusException:
                time.sleep(0.2)
        raise AssertionError("xdg-desktop-portal offers no ScreenCast (no backend chosen for XDG_CURRENT_DESKTOP?)")

    def request(self, method, *args, options=None):
        self.tokens += 1
        token = f"kilntest{self.tokens}"
        path = f"/org/freedesktop/portal/desktop/request/{self.sender}/{token}"
        answer = {}
        loop = self.GLib.MainLoop()

        def on_response(response, results):
            answer["response"], answer["results"] = int(response), results
            loop.quit()
        match = self.bus.add_signal_receiver(on_response, "Response", "org.freedesktop.portal.Request",
                                             "org.freedesktop.portal.Desktop", path)
        getattr(self.portal, method)(*args, self.dbus.Dictionary(dict(options or {}, handle_token=token),
                                                                signature="sv"), timeout=30)
        self.GLib.timeout_add_seconds(30, loop.quit)
        loop.run()
        match.remove()
        if "response" not in answer:
            raise AssertionError(f"ScreenCast.{method}: no Response in 30 s")
        return answer["response"], answer["results"]

    def share(self, cursor_mode=1):
        """CreateSession, SelectSources (a monitor), Start: (response, session, streams)."""
        response, results = self.request("CreateSession", options={"session_handle_token": f"s{self.tokens}"})
        check(response == 0, f"CreateSession answers {response}")
        session = results["session_handle"]
        response, _ = self.request("SelectSources", session,
                                   options={"types": self.dbus.UInt32(1), "multiple": False,
                                            "cursor_mode": self.dbus.UInt32(cursor_mode)})
        check(response == 0, f"SelectSources (monitor, cursor mode {cursor_mode}) answers {response}")
        response, results = self.request("Start", session, "")
        return response, session, [(int(node), dict(props)) for node, props in results.get("streams", [])]

    def backend_screenshot(self):
        """org.freedesktop.impl.portal.Screenshot.Screenshot on kiln-portal: (response, results)."""
        proxy = self.bus.get_object("org.freedesktop.impl.portal.desktop.kiln", "/org/freedesktop/portal/desktop")
        impl = self.dbus.Interface(proxy, "org.freedesktop.impl.portal.Screenshot")
        response, results = impl.Screenshot("/org/freedesktop/portal/desktop/request/test/shot", "", "",
                                            self.dbus.Dictionary({"interactive": False}, signature="sv"), timeout=30)
        return int(response), results

    def remote(self, session):
        fd = self.portal.OpenPipeWireRemote(session, self.dbus.Dictionary({}, signature="sv"))
        return fd.take()

    def close(self, session):
        proxy = self.bus.get_object("org.freedesktop.portal.Desktop", session)
        self.dbus.Interface(proxy, "org.freedesktop.portal.Session").Close()


class StreamReader:
    """pipewiresrc on the portal's PipeWire remote, converted to RGB and pulled from an appsink."""

    def __init__(self, fd, node):
        from gi.repository import Gst
        self.Gst = Gst
        self.pipeline = Gst.parse_launch(
            f"pipewiresrc fd={fd} path={node} always-copy=true ! videoconvert ! video/x-raw,format=RGB ! "
            f"appsink name=sink sync=false max-buffers=1 drop=true emit-signals=false")
        self.sink = self.pipeline.get_by_name("sink")
        # Every buffer pipewiresrc delivers, counted before the appsink drops what Python is too slow to take.
        self.delivered = 0
        self.sink.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, self._count)
        self.pipeline.set_state(Gst.State.PLAYING)

    def _count(self, pad, info):
        self.delivered += 1
        return self.Gst.PadProbeReturn.OK

    def frame(self, timeout=10):
        """The next frame as a Screenshot (RGB rows), or None in `timeout` s."""
        sample = self.sink.emit("try-pull-sample", int(timeout * 1e9))
        if sample is None:
            return None
        structure = sample.get_caps().get_structure(0)
        width, height = structure.get_value("width"), structure.get_value("height")
        buffer = sample.get_buffer()
        ok, info = buffer.map(self.Gst.MapFlags.READ)
        try:
            data = bytes(info.data)
        finally:
            buffer.unmap(info)
        stride = len(data) // height
        pixels = b"".join(data[y * stride:y * stride + width * 3] for y in range(height))
        return Screenshot(width, height, pixels)

    def stop(self):
        self.pipeline.set_state(self.Gst.State.NULL)


def read_png(path):
    """An 8-bit RGB or RGBA PNG (as libpng writes it) as a Screenshot."""
    data = Path(path).read_bytes()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            check(depth == 8 and color in (2, 6) and body[12] == 0, f"the PNG is 8-bit RGB(A), not interlaced")
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xff
            elif kind == 2:
                line[i] = (line[i] + b) & 0xff
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xff
        rows.append(bytes(line) if channels == 3 else
                    b"".join(bytes(line[i:i + 3]) for i in range(0, stride, 4)))
        previous = line
    return Screenshot(width, height, b"".join(rows))


def differing(a, b):
    """How many pixels of two same-sized RGB images differ."""
    return sum(1 for i in range(0, len(a.pixels), 3) if a.pixels[i:i + 3] != b.pixels[i:i + 3])


def xdp_command(portals_dir):
    """xdg-desktop-portal 1.16 reads its backends once, at start: it waits for kiln-portal's name."""
    return (f"gdbus wait --session --timeout 20 org.freedesktop.impl.portal.desktop.kiln && "
            f"XDG_DESKTOP_PORTAL_DIR={portals_dir} exec {XDP} --replace --verbose")


def portal_kiln(stack, portal_command, *args, size, starts=()):
    """kiln on the stack's session bus, starting `portal_command` (a kiln-portal), then xdg-desktop-portal with kiln's
    .portal file as its one backend, then each of `starts`; `args` go to kiln as well."""
    portals_dir = Path(stack.dir) / "portals"
    portals_dir.mkdir()
    shutil.copy(Path(__file__).resolve().parents[2] / "portal" / "kiln.portal", portals_dir / "kiln.portal")
    kiln_env = {k: v for k, v in stack.env.items() if k.startswith(("DBUS_", "PIPEWIRE_"))}
    argv = [*args, "--restrict", "image-copy-capture", "-s", portal_command, "-s", xdp_command(portals_dir)]
    for command in starts:
        argv += ["-s", command]
    return Kiln(*argv, size=f"{size[0]}x{size[1]}", env=kiln_env, runtime_dir=stack.dir, socket="wayland-portal-test")


def main():
    portal_binary = require_stack()
    source_portals = Path(__file__).resolve().parents[2] / "portal"
    with Stack() as stack:
        portals_dir = Path(stack.dir) / "portals"
        portals_dir.mkdir()
        shutil.copy(source_portals / "kiln.portal", portals_dir / "kiln.portal")
        # Backends a desktop has beside kiln's: GNOME's sorts first (1.16's pick where no UseIn matches), wlr's
        # matches `wlroots`. Neither runs: chosen instead of kiln-portal, ScreenCast would be missing.
        for name, use_in in (("gnome", "gnome"), ("wlr", "wlroots;sway")):
            (portals_dir / f"{name}.portal").write_text(
                f"[portal]\nDBusName=org.freedesktop.impl.portal.desktop.{name}\n"
                f"Interfaces=org.freedesktop.impl.portal.ScreenCast;org.freedesktop.impl.portal.Screenshot;\n"
                f"UseIn={use_in}\n")
        kiln_env = {k: v for k, v in stack.env.items() if k.startswith(("DBUS_", "PIPEWIRE_"))}
        deny_now = Path(stack.dir) / "deny-now"
        denying = f"while [ ! -e {deny_now} ]; do sleep 0.1; done; exec {portal_binary} --replace --deny '*'"
        with Kiln("--restrict", "image-copy-capture", "-s", f"{portal_binary} --replace", "-s", xdp_command(portals_dir),
                  "-s", denying,
                  size=f"{SIZE[0]}x{SIZE[1]}", env=kiln_env, runtime_dir=stack.dir,
                  socket="wayland-portal-test") as kiln:
            still = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "200x150", "--color", "3366cc",
                                "--frames", "3", "--stay"])
            wait_drawn(still)
            client = ScreenCastClient(stack.env["DBUS_SESSION_BUS_ADDRESS"])
            types, cursors = client.wait_for_portal()
            check(types & 1 and cursors & 3 == 3,
                  f"the portal offers monitor sources (types {types}) and hidden/embedded cursors (modes {cursors})")

            response, session, streams = client.share(cursor_mode=1)
            check(response == 0 and len(streams) == 1, f"Start answers {response} with one stream: {streams}")
            node, props = streams[0]
            check(tuple(props.get("size", ())) == SIZE, f"the stream is the output's size: {tuple(props['size'])}")
            reader = StreamReader(client.remote(session), node)
            frame = reader.frame()
            check(frame is not None, f"pipewiresrc receives frames from node {node}")
            check((frame.width, frame.height) == SIZE, f"a frame is {frame.width}x{frame.height}")
            shot = kiln.screenshot()
            # The first frame may predate nothing: the screen is still, so every later frame equals grim too.
            frame = reader.frame() or frame
            diff = differing(frame, shot)
            check(diff == 0, f"the streamed frame equals grim's screenshot ({diff} of {SIZE[0] * SIZE[1]} pixels "
                  f"differ; window colour in stream {frame.at(100, 75)}, grim {shot.at(100, 75)})")

            # A consumer that stops and starts again on a still screen (kiln has no new frame to give) gets the frame
            # kiln-portal holds.
            reader.pipeline.set_state(reader.Gst.State.NULL)
            time.sleep(0.5)
            reader = StreamReader(client.remote(session), node)
            again = reader.frame(timeout=5)
            check(again is not None and differing(again, shot) == 0,
                  "a consumer that reconnects to the stream of a still screen gets the current frame")

            # A window animating a white square: the stream sees it move, and keeps up.
            moving = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "300x100", "--color", "00aa00"])
            positions, count = [], 0
            started, delivered = time.monotonic(), reader.delivered
            while time.monotonic() - started < 3:
                frame = reader.frame(timeout=2)
                if frame is None:
                    raise AssertionError(f"no frame in 2 s while the window animates ({count} so far)")
                count += 1
                box = frame.bounding_box(WHITE, tolerance=4)
                if box:
                    positions.append(box[0])
            elapsed = time.monotonic() - started
            rate = (reader.delivered - delivered) / elapsed
            distinct = len(set(positions))
            check(distinct >= 10, f"the white square is seen at {distinct} places in {count} frames read back")
            # The demo draws at the output's 60 Hz; a stream that drops to a trickle is a regression.
            check(rate >= 30, f"the stream delivers {rate:.1f} frames/s while the window animates at 60 Hz")
            reader.stop()
            client.close(session)
            moving.kill()
            moving.wait()
            # The stream's own tally, at its end: frames kiln wrote in place, frames kiln-portal copied.
            ends = lambda: re.findall(r"stream ends: (\d+) frames captured in place, (\d+) frames copied \((\d+) bytes",
                                      Path(kiln.log_path).read_text(errors="replace"))
            kiln.wait_for(ends, "kiln-portal tells how the stream's frames were made")
            in_place, copied, copied_bytes = (int(v) for v in ends()[0])
            check(in_place >= count and copied == 0 and copied_bytes == 0,
                  f"kiln captured the stream's frames into its buffers ({in_place} frames; {count} read back) and "
                  f"kiln-portal copied none ({copied} frames, {copied_bytes} bytes)")

            # The pointer over the background, away from the window, where kiln draws its own cursor. Headless kiln
            # draws the cursor into the output's frames, so grim has it too: the embedded stream equals grim, the
            # hidden one differs from it exactly where the cursor is.
            shot = kiln.screenshot()
            spots = [(x, y) for x, y in ((8, 8), (280, 8), (8, 200), (280, 200))
                     if all(shot.at(x + dx, y + dy) == (0, 0, 0) for dx in range(0, 32, 4) for dy in range(0, 32, 4))]
            check(spots, "a corner of the screen shows the background")
            spot = spots[0]
            pointer = VirtualPointer(Connection(kiln.client_env), SIZE)
            pointer.move(*spot)
            time.sleep(0.3)
            frames = {}
            for mode in (1, 2):
                response, session, streams = client.share(cursor_mode=mode)
                check(response == 0 and len(streams) == 1, f"Start with cursor mode {mode} answers {response}")
                reader = StreamReader(client.remote(session), streams[0][0])
                frames[mode] = reader.frame()
                check(frames[mode] is not None, f"the stream with cursor mode {mode} has frames")
                reader.stop()
                client.close(session)
            shot = kiln.screenshot()
            diff = differing(frames[2], shot)
            check(diff == 0, f"with the cursor embedded the stream equals grim ({diff} pixels differ)")
            where = [(i // 3 % SIZE[0], i // 3 // SIZE[0]) for i in range(0, len(shot.pixels), 3)
                     if frames[1].pixels[i:i + 3] != shot.pixels[i:i + 3]]
            near = all(spot[0] - 8 <= x < spot[0] + 40 and spot[1] - 8 <= y < spot[1] + 40 for x, y in where)
            check(len(where) >= 20 and near, f"with the cursor hidden, {len(where)} pixels differ from grim, all "
                  f"at the pointer {spot}")

            # Screenshot: a PNG of the output, equal to grim's, asked of kiln-portal itself (through
            # xdg-desktop-portal, with its permission question: tests/portal/screenshot_access.py).
            response, results = client.backend_screenshot()
            check(response == 0 and str(results.get("uri", "")).startswith("file://"),
                  f"Screenshot answers {response} with a file ({dict(results)})")
            picture = read_png(str(results["uri"])[len("file://"):])
            shot = kiln.screenshot()
            diff = differing(picture, shot) if (picture.width, picture.height) == SIZE else -1
            check(diff == 0, f"the screenshot ({picture.width}x{picture.height}) equals grim's ({diff} pixels differ)")

            deny_now.touch()
            kiln.wait_for(lambda: "another kiln-portal replaced this one" in kiln.logs(), "the first kiln-portal to "
                          "leave when a second takes its name", timeout=20)
            response, _, streams = client.share()
            check(response == 1 and not streams, f"with --deny '*' Start is cancelled (response {response})")
            check("denied by --deny" in kiln.logs(), "kiln-portal says why it refused")

            # The same program, not started by kiln, is refused kiln's privileged capture and says why.
            refused = subprocess.run([str(portal_binary)], env=kiln.client_env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, timeout=20)
            check(refused.returncode == 1 and "ext_output_image_capture_source_manager_v1" in refused.stdout,
                  f"a kiln-portal kiln did not start is refused capture: {refused.stdout.strip()}")


if __name__ == "__main__":
    run_test(main)
