#!/usr/bin/env python3
"""dma-buf capture on headless kiln where its renderer has a render node: ext-image-copy-capture offers the device
and linear XRGB8888, kiln-capture-client's GBM dma-buf frames equal its shm frame pixel for pixel, a wrong-sized
dma-buf fails with buffer_constraints, and the dma-buf frames are drawn by the GPU into the buffer: kiln's
buffers.readback_bytes grows by less than one frame over a run without them (each would add a whole frame) while
buffers.dmabuf_render_targets counts them. Skipped (77) without a render node; the VM rig runs the same checks on
the DRM backend (tests/vm/guest_capture_dmabuf.py)."""
import glob
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from dmabuf_capture import capture, check_captures, show_pattern  # noqa: E402
from kiln_harness import Kiln, check, run_test, skip  # noqa: E402


def run(with_dmabuf):
    with Kiln(size="640x480") as kiln:
        clients = show_pattern(kiln.client_env)
        if with_dmabuf:
            frames, frame_bytes = check_captures(kiln.client_env, kiln.tmp)
        else:
            status, _, image = capture(kiln.client_env, kiln.tmp, "shm", "--buffer", "shm")
            check(status == 0 and image is not None, "the baseline's shm capture")
            frames, frame_bytes = 0, image.width * image.height * 4
        for child in clients:
            child.terminate()
            child.wait(30)
        status, stats = kiln.stop()
        check(status == 0 and stats is not None, "kiln exits cleanly with its stats")
        return frames, frame_bytes, stats["buffers"]


def main():
    if not glob.glob("/dev/dri/renderD*"):
        skip("no render node here (/dev/dri/renderD*): kiln's renderer has no DRM device to offer dma-buf capture "
             "from; the VM rig's vm_capture_dmabuf runs these checks on vkms")
    _, _, base = run(False)
    frames, frame_bytes, buffers = run(True)
    grown = buffers["readback_bytes"] - base["readback_bytes"]
    print(f"readback_bytes: {base['readback_bytes']} without dma-buf frames, {buffers['readback_bytes']} with "
          f"{frames}; dmabuf_render_targets {base['dmabuf_render_targets']} -> {buffers['dmabuf_render_targets']}")
    check(grown < frame_bytes, f"{frames} dma-buf frames read nothing back ({grown} bytes more than without them; "
          f"one frame is {frame_bytes})")
    check(buffers["dmabuf_render_targets"] - base["dmabuf_render_targets"] >= frames,
          "each dma-buf frame was drawn into the client's buffer as a render target")


run_test(main)
