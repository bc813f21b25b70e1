#!/usr/bin/env python3
"""Runs inside the VM: kiln on the DRM backend (vkms), clients with real dma-bufs (GBM, udmabuf, dma-heap) and a
weston client; screenshots show their pixels, the stats prove one import per buffer and no copies, and a fullscreen
client is scanned out directly. (Removing vkms under kiln is not tested: 6.12's vkms is a bare platform device with
no driver to unbind and no configfs, and the kernel refuses to unload the module while kiln holds the card.)"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Screenshot, check, client_binary, kiln_binary, rgb, run_test  # noqa: E402

OUT = Path(os.environ.get("KILN_VM_OUT", "/tmp"))
ENV = dict(os.environ, WLR_LIBINPUT_NO_DEVICES="1", XDG_RUNTIME_DIR="/run/user-test", WAYLAND_DISPLAY="kiln-vm")


def screenshot():
    result = subprocess.run(["grim", "-t", "ppm", "-"], env=ENV, capture_output=True, timeout=60)
    if result.returncode != 0:
        raise AssertionError(f"grim failed: {result.stderr.decode(errors='replace').strip()}")
    return Screenshot.from_ppm(result.stdout)


def wait_for_colour(colour, what, minimum=2000, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if screenshot().count(colour, tolerance=6, step=4) * 16 >= minimum:
            return True
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def main():
    stats_path = OUT / "stats.json"
    kiln = subprocess.Popen(["seatd-launch", "--", kiln_binary(), "--backend", "drm", "--socket", "kiln-vm",
                             "--stats", str(stats_path)], env=ENV, stdout=open(OUT / "kiln.log", "w"),
                            stderr=subprocess.STDOUT)
    try:
        socket = Path("/run/user-test/kiln-vm")
        deadline = time.monotonic() + 90
        while not socket.exists():
            if kiln.poll() is not None:
                raise AssertionError("kiln exited before opening its socket")
            if time.monotonic() > deadline:
                raise AssertionError("kiln did not open its socket on the DRM backend")
            time.sleep(0.2)
        check(True, "kiln runs on the DRM backend (vkms)")

        # On KMS kiln can name the device clients should allocate from: linux-dmabuf v5 with feedback.
        info = subprocess.run(["wayland-info"], env=ENV, capture_output=True, text=True, timeout=60).stdout
        block = info[info.find("zwp_linux_dmabuf_v1"):][:3000]
        check("version:  5" in block and "main device:" in block and "tranche" in block,
              "linux-dmabuf v5 with default feedback (main device, a tranche of formats) on the DRM backend")

        for source, colour in (("gbm", "3366cc"), ("udmabuf", "cc6633"), ("heap", "33cc66")):
            client = subprocess.Popen([client_binary("kiln-demo-dmabuf"), "--source", source, "--color", colour,
                                       "--size", "320x240", "--frames", "100000"], env=ENV,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            wait_for_colour(rgb(colour), f"the {source} client's pixels")
            check(True, f"a client's {source} dma-buf is on screen")
            client.terminate()
            client.wait(30)

        # Multi-planar YUV: llvmpipe refuses an NV12 image whole (EGL_BAD_ALLOC, udmabuf or not) but imports its
        # planes as R8 and GR88, so kiln offers NV12 and converts it in its own shader. The demo's NV12 is the
        # limited-range luma of the colour's green channel with neutral chroma: 0xaa comes back as grey aaaaaa.
        check("'NV12'" in info[info.find("zwp_linux_dmabuf_v1"):], "NV12 is offered in linux-dmabuf")
        client = subprocess.Popen([client_binary("kiln-demo-dmabuf"), "--source", "udmabuf", "--format", "nv12",
                                   "--color", "00aa00", "--size", "320x240", "--frames", "100000"], env=ENV,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        wait_for_colour(rgb("aaaaaa"), "the NV12 client's pixels")
        check(client.poll() is None, "an NV12 udmabuf is imported through planes and shown")
        client.terminate()
        client.wait(30)
        check(kiln.poll() is None, "kiln carries on after the NV12 client")

        # wl_drm (Mesa's and older Xwayland's path): a PRIME buffer through the same import.
        client = subprocess.Popen([client_binary("kiln-demo-dmabuf"), "--source", "udmabuf", "--protocol", "wl_drm",
                                   "--color", "66aa11", "--size", "320x240", "--frames", "100000"], env=ENV,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        wait_for_colour(rgb("66aa11"), "the wl_drm client's pixels")
        check(True, "a wl_drm PRIME buffer is on screen")
        client.terminate()
        client.wait(30)

        # Fullscreen and opaque: the scene can put the client's buffer on the primary plane.
        client = subprocess.Popen([client_binary("kiln-demo-dmabuf"), "--source", "gbm", "--color", "aa22aa",
                                   "--fullscreen", "--frames", "100000"], env=ENV, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT)
        wait_for_colour(rgb("aa22aa"), "the fullscreen client", minimum=300000)
        time.sleep(2)
        client.terminate()
        client.wait(30)

        # weston-simple-dmabuf-egl allocates with GBM on the KMS device: find vkms by driver name, not card number.
        # (vkms is a bare platform device with no driver link; its uevent names it.)
        vkms = next((f"/dev/dri/{card.name}" for card in sorted(Path("/sys/class/drm").glob("card[0-9]*"))
                     if "-" not in card.name and "vkms" in (card / "device" / "uevent").read_text()), None)
        check(vkms is not None, f"the vkms card is {vkms}")
        check(shutil.which("weston-simple-dmabuf-egl") is not None, "weston-simple-dmabuf-egl is installed")
        weston = subprocess.Popen(["weston-simple-dmabuf-egl", "-d", vkms], env=ENV,
                                  stdout=open(OUT / "weston-simple-dmabuf-egl.log", "w"), stderr=subprocess.STDOUT)
        time.sleep(8)
        check(weston.poll() is None, "weston-simple-dmabuf-egl (a client no one here wrote) runs on kiln")
        weston.terminate()
        weston.wait(30)

        # kiln holds the card open: the kernel refuses to unload vkms (so no removal can be tested this way).
        unload = subprocess.run(["rmmod", "vkms"], capture_output=True, text=True)
        check(unload.returncode != 0 and "in use" in unload.stderr,
              f"the kernel refuses to unload vkms while kiln holds it ({unload.stderr.strip() or 'unloaded'})")
        # SIGTERM to kiln itself (seatd-launch is its parent), so it writes its stats and exits cleanly.
        pid = subprocess.run(["pgrep", "-x", "kiln"], capture_output=True, text=True).stdout.split()
        check(len(pid) == 1, f"kiln's pid is {pid}")
        os.kill(int(pid[0]), signal.SIGTERM)
        check(kiln.wait(60) == 0, "kiln (and seatd-launch) exit 0 on SIGTERM")
        stats = json.loads(stats_path.read_text())
        b, f = stats["buffers"], stats["frames"]
        print(f"stats: {json.dumps(b)} {json.dumps(f)}")
        check(b["released_after_render"] >= 1, "dma-bufs went back to clients after the frames that sampled them")
        check(f["ring_slots"] >= 2, f"on KMS kiln's ring holds more than one buffer ({f['ring_slots']} slots: one on "
              f"screen, one queued, one drawing)")
        check(f["rendered"] > f["direct_scanout"], "frames were composited, not only scanned out")
        check(b["dmabuf_reimports"] == 0, "no dma-buf was imported twice")
        check(b["dmabuf_imports"] >= 3 and b["dmabuf_texture_reuses"] > b["dmabuf_imports"],
              f"{b['dmabuf_imports']} imports served {b['dmabuf_texture_reuses']} commits")
        check(f["rendered"] > 0, f"kiln rendered {f['rendered']} frames on vkms")
        check(f["direct_scanout"] > 0, f"the fullscreen client was scanned out directly ({f['direct_scanout']} frames)")
    finally:
        if kiln.poll() is None:
            kiln.kill()
        print((OUT / "kiln.log").read_text()[-3000:])


run_test(main)
