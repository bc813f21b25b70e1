#!/usr/bin/env python3
"""Runs inside the VM: kiln on the DRM backend (vkms), where linux-dmabuf and ext-image-copy-capture name a main
device. A still screen (two windows of known colours) is captured into wl_shm and into GBM dma-bufs by
kiln-capture-client: the session offers the device and linear XRGB8888, every dma-buf frame equals the shm frame
pixel for pixel (and grim's screenshot), a wrong-sized dma-buf fails with buffer_constraints, and the dma-buf frames
are drawn into the buffers by the renderer, not read back: kiln's buffers.readback_bytes over the whole run is the
same as in a run that captures only into shm (after a warm-up start, so both start alike), while
buffers.dmabuf_render_targets counts them."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from dmabuf_capture import capture, check_captures, differing, show_pattern  # noqa: E402
from kiln_harness import Screenshot, check, kiln_binary, run_test  # noqa: E402

OUT = Path(os.environ.get("KILN_VM_OUT", "/tmp"))
ENV = dict(os.environ, WLR_LIBINPUT_NO_DEVICES="1", XDG_RUNTIME_DIR="/run/user-test", WAYLAND_DISPLAY="kiln-vm")


def run(name, with_dmabuf, warm_up=False):
    """One kiln on vkms: the pattern, the captures, then SIGTERM; returns (dma-buf frames, frame bytes, buffers).
    `warm_up`: only start and stop, so that the runs that count find the display profile cached and start alike."""
    stats_path = OUT / f"stats-{name}.json"
    socket = Path("/run/user-test/kiln-vm")
    kiln = subprocess.Popen(["seatd-launch", "--", kiln_binary(), "--backend", "drm", "--socket", "kiln-vm",
                             "--background", "0x202020", "--stats", str(stats_path)], env=ENV,
                            stdout=open(OUT / f"kiln-{name}.log", "w"), stderr=subprocess.STDOUT)
    clients = []
    try:
        deadline = time.monotonic() + 90
        while not socket.exists():
            if kiln.poll() is not None:
                raise AssertionError("kiln exited before opening its socket")
            if time.monotonic() > deadline:
                raise AssertionError("kiln did not open its socket on the DRM backend")
            time.sleep(0.2)
        frames, frame_bytes = 0, 0
        if warm_up:
            time.sleep(2)  # the profile is written once EGL is up
        else:
            clients = show_pattern(ENV)
        if with_dmabuf:
            frames, frame_bytes = check_captures(ENV, OUT)
            grim = subprocess.run(["grim", "-t", "ppm", "-"], env=ENV, capture_output=True, timeout=60)
            check(grim.returncode == 0, "grim took a screenshot")
            shot = Screenshot.from_ppm(grim.stdout)
            dma = Screenshot.from_ppm((OUT / "dmabuf.ppm").read_bytes())
            diff = differing(shot, dma) if (shot.width, shot.height) == (dma.width, dma.height) else -1
            check(diff == 0, f"the dma-buf capture equals grim's screenshot ({diff} pixels differ)")
        elif not warm_up:
            status, _, image = capture(ENV, OUT, "baseline", "--buffer", "shm")
            check(status == 0 and image is not None, "the baseline's shm capture")
            frames, frame_bytes = 0, image.width * image.height * 4
        check(kiln.poll() is None, "kiln carries on")
        for child in clients:
            child.terminate()
            child.wait(30)
        # SIGTERM to kiln itself (seatd-launch is its parent), so it writes its stats and exits cleanly.
        pid = subprocess.run(["pgrep", "-x", "kiln"], capture_output=True, text=True).stdout.split()
        check(len(pid) == 1, f"kiln's pid is {pid}")
        os.kill(int(pid[0]), signal.SIGTERM)
        check(kiln.wait(60) == 0, "kiln (and seatd-launch) exit 0 on SIGTERM")
        return frames, frame_bytes, json.loads(stats_path.read_text())["buffers"]
    finally:
        for child in clients:
            if child.poll() is None:
                child.kill()
        if kiln.poll() is None:
            kiln.kill()
            kiln.wait(30)
        print((OUT / f"kiln-{name}.log").read_text()[-3000:])


def main():
    # The first kiln on a fresh guest has no display profile cached: it starts EGL at once and composes output frames
    # with GL into dumb buffers, reading each back; later ones start it lazily and compose on the CPU. The two runs
    # compared must start alike, or that difference (a whole frame here) hides in the count.
    run("warm-up", False, warm_up=True)
    _, _, base = run("baseline", False)
    frames, frame_bytes, buffers = run("dmabuf", True)
    print(f"stats without dma-buf frames: {json.dumps(base)}\nstats with {frames}: {json.dumps(buffers)}")
    grown = buffers["readback_bytes"] - base["readback_bytes"]
    check(grown == 0, f"{frames} dma-buf frames read nothing back ({grown} bytes more than without them; one frame "
          f"is {frame_bytes})")
    check(buffers["dmabuf_render_targets"] - base["dmabuf_render_targets"] >= frames,
          f"each dma-buf frame was a render target of its own ({base['dmabuf_render_targets']} -> "
          f"{buffers['dmabuf_render_targets']})")


run_test(main)
