#!/usr/bin/env python3
"""Runs inside the VM: kiln-portal streams dma-bufs. kiln on the DRM backend (vkms) names a dma-buf device for its
capture; with a session bus, PipeWire and WirePlumber, kiln starts kiln-portal (`-s`), which is asked for a monitor
ScreenCast through its org.freedesktop.impl.portal interface (no xdg-desktop-portal: the same calls it would make).
kiln-portal-dmabuf-reader, a consumer that takes only SPA_DATA_DmaBuf buffers of the linear modifier, leaving the
modifier to the producer to fixate:
- gets the format with the linear modifier fixated, and dma-buf frames (kiln-portal allocated them with GBM on the
  capture's device and kiln drew into them);
- a first frame comes on the still screen; a third window then appears, and its frames come too, captured into the
  stream's other dma-bufs (which kiln-portal tells kiln what they lack since they were last filled);
- the last frame, mapped from its dma-buf, equals grim's screenshot pixel for pixel (the third window in it);
- the session closed (its stream and dma-bufs freed), kiln-portal serves on;
- kiln read nothing back for it: buffers.readback_bytes over the run stays under one frame's bytes (a capture into
  shm reads each frame back whole), while buffers.dmabuf_render_targets counts the frames drawn into dma-bufs.
A warm-up kiln runs first (the first kiln on a fresh guest composes with GL and reads its output frames back)."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "portal"))
from dmabuf_capture import differing, show_pattern  # noqa: E402
from kiln_harness import (Screenshot, build_dir, check, client_binary, kiln_binary, run_test, skip,  # noqa: E402
                          time_scale, wait_drawn)
from screencast import Stack, require_stack  # noqa: E402

OUT = Path(os.environ.get("KILN_VM_OUT", "/tmp"))
IMPL = "org.freedesktop.impl.portal.desktop.kiln"
PATH = "/org/freedesktop/portal/desktop"


def start_kiln(env, name, *args):
    stats = OUT / f"stats-{name}.json"
    log = OUT / f"kiln-{name}.log"
    kiln = subprocess.Popen(["seatd-launch", "--", kiln_binary(), "--backend", "drm", "--socket", "kiln-vm",
                             "--background", "0x202020", "--stats", str(stats), *args], env=env,
                            stdout=open(log, "w"), stderr=subprocess.STDOUT)
    socket = Path(env["XDG_RUNTIME_DIR"]) / "kiln-vm"
    deadline = time.monotonic() + 120
    while not socket.exists():
        check(kiln.poll() is None, f"kiln ({name}) runs:\n{log.read_text()[-2000:]}")
        check(time.monotonic() < deadline, "kiln opened its socket on the DRM backend")
        time.sleep(0.2)
    return kiln, stats, log


def stop_kiln(kiln, stats):
    """SIGTERM to kiln itself (seatd-launch is its parent): it writes its stats and exits; returns its buffers."""
    pid = subprocess.run(["pgrep", "-x", "kiln"], capture_output=True, text=True).stdout.split()
    check(len(pid) == 1, f"kiln's pid is {pid}")
    os.kill(int(pid[0]), signal.SIGTERM)
    check(kiln.wait(60) == 0, "kiln (and seatd-launch) exit 0 on SIGTERM")
    return json.loads(stats.read_text())["buffers"]


def share_monitor(address):
    """CreateSession, SelectSources (a monitor, cursor hidden) and Start on kiln-portal: the stream's node id."""
    import dbus
    bus = dbus.bus.BusConnection(address)
    deadline = time.monotonic() + 120
    while not bus.name_has_owner(IMPL):
        check(time.monotonic() < deadline, f"kiln-portal took {IMPL}")
        time.sleep(0.2)
    screencast = dbus.Interface(bus.get_object(IMPL, PATH), "org.freedesktop.impl.portal.ScreenCast")
    session = dbus.ObjectPath(f"{PATH}/session/test/s1")
    empty = dbus.Dictionary({}, signature="sv")
    response, _ = screencast.CreateSession(dbus.ObjectPath(f"{PATH}/request/test/r1"), session, "", empty,
                                           timeout=120)
    check(response == 0, f"CreateSession answers {response}")
    options = dbus.Dictionary({"types": dbus.UInt32(1), "cursor_mode": dbus.UInt32(1)}, signature="sv")
    response, _ = screencast.SelectSources(dbus.ObjectPath(f"{PATH}/request/test/r2"), session, "", options,
                                           timeout=120)
    check(response == 0, f"SelectSources answers {response}")
    response, results = screencast.Start(dbus.ObjectPath(f"{PATH}/request/test/r3"), session, "", "", empty,
                                         timeout=120)
    streams = results.get("streams", [])
    check(response == 0 and len(streams) == 1, f"Start answers {response} with one stream: {streams}")
    return int(streams[0][0])


def close_session(address):
    """Session.Close on kiln-portal's session (its stream and dma-bufs go); then kiln-portal must still be serving."""
    import dbus
    bus = dbus.bus.BusConnection(address)
    session = dbus.Interface(bus.get_object(IMPL, f"{PATH}/session/test/s1"), "org.freedesktop.impl.portal.Session")
    session.Close(timeout=60)
    time.sleep(2 * time_scale())
    alive = subprocess.run(["pgrep", "-x", "kiln-portal"], capture_output=True, text=True).stdout.split()
    check(alive and bus.name_has_owner(IMPL), f"kiln-portal serves on after the dma-buf session closed ({alive})")


def main():
    require_stack()
    reader = build_dir() / "tests" / "portal" / "kiln-portal-dmabuf-reader"
    if not reader.exists():
        skip("kiln-portal-dmabuf-reader was not built (needs libpipewire-0.3-dev)")
    portal = build_dir() / "portal" / "kiln-portal"
    with Stack() as stack:
        env = dict(stack.env, WLR_LIBINPUT_NO_DEVICES="1")
        kiln, stats, _ = start_kiln(env, "warm-up")
        time.sleep(2)  # the display profile is written once EGL is up
        stop_kiln(kiln, stats)

        kiln, stats, log = start_kiln(env, "portal", "--restrict", "image-copy-capture", "-s", f"{portal} --replace")
        clients = []
        try:
            client_env = dict(env, WAYLAND_DISPLAY="kiln-vm")
            clients = show_pattern(client_env)
            node = share_monitor(env["DBUS_SESSION_BUS_ADDRESS"])
            ppm = OUT / "portal-dmabuf.ppm"
            reader_out = OUT / "reader.log"
            consumer = subprocess.Popen([str(reader), str(node), "500", str(ppm)], env=env,
                                        stdout=open(reader_out, "w"), stderr=subprocess.STDOUT)
            clients.append(consumer)

            def frames():
                return [line.split() for line in reader_out.read_text().splitlines() if line.startswith("frame ")]
            # The first frame waits for kiln's renderer to start (lazily, and slowly under TCG).
            # A line every 20 s: the rig's watchdog takes a silent guest for a hung one.
            started = time.monotonic()
            while not frames():
                waited = time.monotonic() - started
                if consumer.poll() is not None or waited > min(200, 120 * time_scale()):
                    check(False, f"the consumer got a first frame in {waited:.0f} s:\n{reader_out.read_text()}")
                if int(waited) % 20 == 0:
                    print(f"waiting for the consumer's first frame ({waited:.0f} s)", flush=True)
                time.sleep(1)
            first = len(frames())
            # The screen changes: a third window. Its frames are captured into the stream's other dma-bufs.
            clients.append(subprocess.Popen([client_binary("kiln-demo-shm"), "--color", "33cc66", "--size", "160x120",
                                             "--frames", "3", "--stay"], env=client_env, stdout=subprocess.PIPE,
                                            stderr=subprocess.STDOUT))
            wait_drawn(clients[-1], timeout=60)
            deadline = time.monotonic() + min(200, 120 * time_scale())
            count, still_since = len(frames()), time.monotonic()
            while time.monotonic() - still_since < 5 * time_scale() or count == first:
                if time.monotonic() > deadline:
                    check(False, f"the consumer got frames after the change ({count} in all)")
                time.sleep(1)
                if len(frames()) != count:
                    count, still_since = len(frames()), time.monotonic()
            consumer.terminate()
            consumer.wait(30)
            lines = reader_out.read_text().splitlines()
            print(f"--- kiln-portal-dmabuf-reader\n" + "\n".join(lines[-40:]))
            formats = [line.split() for line in lines if line.startswith("format ")]
            check(formats and formats[-1][4] == "0", f"the consumer's format has the linear modifier: {formats}")
            all_frames = frames()
            dmabuf_frames = [f for f in all_frames if f[1] == "3"]  # SPA_DATA_DmaBuf
            check(len(dmabuf_frames) >= 2 and len(dmabuf_frames) == len(all_frames),
                  f"every buffer the consumer got is a dma-buf, before and after the change ({len(dmabuf_frames)} "
                  f"of {len(all_frames)})")
            check(ppm.exists(), "the consumer mapped a dma-buf frame")
            grim = subprocess.run(["grim", "-t", "ppm", "-"], env=client_env, capture_output=True, timeout=60)
            check(grim.returncode == 0, "grim took a screenshot")
            shot, frame = Screenshot.from_ppm(grim.stdout), Screenshot.from_ppm(ppm.read_bytes())
            check(shot.count((0x33, 0xcc, 0x66), tolerance=0, step=4) > 100, "grim shows the third window")
            same_size = (shot.width, shot.height) == (frame.width, frame.height)
            diff = differing(shot, frame) if same_size else -1
            check(diff == 0, f"the last streamed dma-buf frame equals grim's screenshot ({diff} pixels differ)")
            close_session(env["DBUS_SESSION_BUS_ADDRESS"])
            kiln_log = log.read_text()
            check("kiln-portal: offering dma-buf frames" in kiln_log, "kiln-portal says it offers dma-buf frames")
            for child in clients:
                child.terminate()
                child.wait(30)
            buffers = stop_kiln(kiln, stats)
        finally:
            for child in clients:
                if child.poll() is None:
                    child.kill()
            if kiln.poll() is None:
                kiln.kill()
                kiln.wait(30)
            print(log.read_text()[-4000:])
        frame_bytes = shot.width * shot.height * 4
        print(f"stats: {json.dumps(buffers)}")
        check(buffers["readback_bytes"] < frame_bytes,
              f"{len(dmabuf_frames)} streamed frames read nothing back ({buffers['readback_bytes']} bytes over the "
              f"run; one frame is {frame_bytes})")
        check(buffers["dmabuf_render_targets"] >= 1,
              f"the frames were drawn into dma-bufs ({buffers['dmabuf_render_targets']} render targets)")


run_test(main)
