"""dma-buf capture through ext-image-copy-capture, shared by tests/protocol/capture_dmabuf.py (headless kiln on a
render node) and tests/vm/guest_capture_dmabuf.py (kiln on DRM in the VM): a still screen with a known pattern is
captured into wl_shm and into dma-bufs by kiln-capture-client, whose pixels must agree; the session must offer the
renderer's device and linear XRGB8888; a dma-buf of the wrong size fails with buffer_constraints."""
import subprocess
import time
from pathlib import Path

from kiln_harness import Screenshot, check, client_binary, time_scale, wait_drawn

XRGB8888 = 0x34325258  # 'XR24'
BUFFER_CONSTRAINTS = 1
# Two windows of known colours, each with the demo's white square where its last frame left it.
PATTERN = (("3366cc", "320x240"), ("cc6633", "200x160"))


def show_pattern(env):
    """Starts the pattern's windows and waits until both drew their frames and stay still; returns the processes."""
    clients = []
    for colour, size in PATTERN:
        child = subprocess.Popen([client_binary("kiln-demo-shm"), "--color", colour, "--size", size, "--frames", "3",
                                  "--stay"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        wait_drawn(child, timeout=60)
        clients.append(child)
    time.sleep(1 * time_scale())  # the output's last frame shows both
    return clients


def capture(env, directory, name, *args):
    """One kiln-capture-client run: (exit status, stdout, the captured image or None)."""
    ppm = Path(directory) / f"{name}.ppm"
    result = subprocess.run([client_binary("kiln-capture-client"), "--ppm", str(ppm), *args], env=env,
                            capture_output=True, text=True, timeout=120 * time_scale())
    print(f"--- kiln-capture-client {' '.join(args)}: exit {result.returncode}\n{result.stdout}{result.stderr}",
          end="")
    image = Screenshot.from_ppm(ppm.read_bytes()) if result.returncode == 0 and ppm.exists() else None
    return result.returncode, result.stdout, image


def differing(a, b):
    """Pixels of two equal-sized images that differ at all (counted only when they do: slow under TCG)."""
    if a.pixels == b.pixels:
        return 0
    return sum(1 for i in range(0, len(a.pixels), 3) if a.pixels[i:i + 3] != b.pixels[i:i + 3])


def check_captures(env, directory, source="gbm", more=2):
    """The shm capture, then 1 + `more` dma-buf captures (each its own session: a still screen has a first frame
    only) compared with it, then a dma-buf of the wrong size. Returns (dma-buf frames drawn, bytes in one frame)."""
    status, out, shm = capture(env, directory, "shm", "--buffer", "shm")
    check(status == 0 and shm is not None, "the output captured into wl_shm")
    check(shm.count((0x33, 0x66, 0xcc), tolerance=0, step=4) > 100 and
          shm.count((0xcc, 0x66, 0x33), tolerance=0, step=4) > 100,
          "the shm capture shows both windows' colours")

    status, out, dma = capture(env, directory, "dmabuf", "--buffer", "dmabuf", "--source", source)
    lines = out.splitlines()
    check(any(line.startswith("dmabuf_device ") for line in lines), "the session named a dma-buf device")
    xrgb = [line for line in lines if line.startswith(f"dmabuf_format {XRGB8888:08x} ")]
    check(xrgb and "0" in xrgb[0].split()[2].split(","),
          f"the session offered linear XRGB8888 dma-bufs ({xrgb[0] if xrgb else 'no XRGB8888'})")
    check(status == 0 and "frame 0 ready" in out, f"a {source} dma-buf capture is ready (exit {status})")
    check(dma is not None and (dma.width, dma.height) == (shm.width, shm.height), "the dma-buf frame was read")
    check(bytes([0x0a, 0x0b, 0x0c]) not in dma.pixels, "kiln drew into all of the dma-buf (none of the "
          "client's pre-fill is left)")
    diff = differing(shm, dma)
    check(diff == 0, f"the dma-buf capture equals the shm capture pixel for pixel ({diff} of "
          f"{shm.width * shm.height} differ)")

    for n in range(more):
        status, out, image = capture(env, directory, f"dmabuf-{n}", "--buffer", "dmabuf", "--source", source)
        check(status == 0 and image is not None and differing(shm, image) == 0,
              f"dma-buf capture {n + 2} equals the shm capture")

    status, out, _ = capture(env, directory, "small", "--buffer", "dmabuf", "--source", source, "--size", "64x48")
    check(status == 1 and f"frame 0 failed {BUFFER_CONSTRAINTS}" in out,
          "a dma-buf of another size than offered fails with buffer_constraints")
    return 1 + more, shm.width * shm.height * 4
