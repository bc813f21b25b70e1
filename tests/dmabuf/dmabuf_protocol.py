#!/usr/bin/env python3
"""linux-dmabuf on the host: every validation rule gets its protocol error (or, for the asynchronous create, memory
that cannot hold the buffer its 'failed' event, and the client stays connected), kiln survives 500 randomized bad
descriptions while another client keeps running, and a good memfd-backed buffer is sampled in place (one import
or mapping per buffer, no re-import, no copy)."""
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, client_binary, rgb, run_test, skip, stat  # noqa: E402

CLIENT = os.environ["KILN_DMABUF_CLIENT"]

EXPECTED = {
    "good": "created",
    "good_create": "created",
    "already_used": "error 0",
    "plane_idx": "error 1",
    "plane_set": "error 2",
    "incomplete_none": "error 3",
    "incomplete_gap": "error 3",
    "incomplete_extra_plane": "error 3",
    "invalid_format": "error 4",
    "invalid_dimensions_zero": "error 5",
    "invalid_dimensions_huge": "error 5",
    "out_of_bounds_small": "error 6",
    "out_of_bounds_overflow": "error 6",
    "out_of_bounds_stride": "error 6",
    "dev_zero": "error 6",
    "socket": "error 6",
    "pipe": "error 6",
    # create, the asynchronous request: memory that cannot hold the buffer is 'failed' (it was a fatal error 6);
    # other argument errors stay fatal.
    "create_bad_size": "failed",
    "create_bad_stride": "failed",
    "create_pipe": "failed",
    "create_dev_zero": "failed",
    "create_invalid_format": "error 4",
    "create_incomplete": "error 3",
    "create_failed_then_reused": "error 0",
}


def main():
    with Kiln(size="640x480") as kiln:
        probe = kiln.run([CLIENT, "good"])
        if probe.returncode == 77 or "no linux-dmabuf" in probe.stdout:
            skip("kiln offers no linux-dmabuf here (its EGL display cannot import dma-bufs)")
        bystander = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "160x120", "--color", "aa8833"])
        kiln.wait_for(lambda: kiln.screenshot().count(rgb("aa8833"), step=2) > 1000, "the bystander client")

        for case, expected in EXPECTED.items():
            result = kiln.run([CLIENT, case])
            got = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stdout
            check(got == expected, f"{case}: {expected} (got {got!r})")
            if case == "create_failed_then_reused":
                check("failed first" in result.stdout, f"{case}: 'failed' came before ({result.stdout!r})")
        check(kiln.alive(), "kiln survived every bad description")

        # Only formats the driver really imports are offered. llvmpipe refuses every NV12 image whole, but imports
        # its planes (R8 luma, GR88 chroma), so kiln offers NV12 through planes and converts it in its own shader.
        info = kiln.run(["wayland-info"]).stdout
        offered = info[info.find("zwp_linux_dmabuf_v1"):][:4000]
        check("'XR24'" in offered, "XRGB8888 dma-bufs are offered")
        check("'NV12'" in offered, "NV12 dma-bufs are offered")
        # The demo fills NV12 with the limited-range luma of the colour's green channel and neutral chroma: 0xaa
        # is code 162, which BT.601 limited range turns back into grey aaaaaa.
        nv12 = kiln.spawn([client_binary("kiln-demo-dmabuf"), "--source", "memfd", "--format", "nv12",
                           "--size", "160x120", "--color", "00aa00", "--frames", "60"])
        kiln.wait_for(lambda: kiln.screenshot().count(rgb("aaaaaa"), tolerance=2, step=2) > 2000,
                      "the NV12 client's grey")
        check(nv12.wait(30) == 0, "the NV12 client is shown and runs its frames")

        result = kiln.run([CLIENT, "random", "1122", "500"], timeout=120)
        check(result.returncode == 0, f"500 random descriptions each got an answer:\n{result.stdout}")
        outcomes = dict(re.findall(r"outcome (.+): (\d+)", result.stdout))
        errors = sum(int(n) for o, n in outcomes.items() if o.startswith("error"))
        check(errors >= 400, f"most random descriptions were refused with a protocol error ({outcomes})")
        check(kiln.alive(), "kiln survived 500 random descriptions")
        check(bystander.poll() is None, "the bystander client is still connected")
        check(kiln.screenshot().count(rgb("aa8833"), step=2) > 1000, "and still on screen")

        # A good client: three memfd-backed "dma-bufs" (llvmpipe maps any mmap-able fd), cycled for 90 frames.
        good = kiln.spawn([client_binary("kiln-demo-dmabuf"), "--source", "memfd", "--buffers", "3",
                           "--size", "200x150", "--color", "2266ee", "--frames", "90"])
        kiln.wait_for(lambda: kiln.screenshot().count(rgb("2266ee"), step=2) > 5000, "the dma-buf client's pixels")
        check(good.wait(30) == 0, "kiln-demo-dmabuf ran its 90 frames")
        status, stats = kiln.stop()

    check(status == 0, f"kiln exits 0 (got {status})")
    imports = stat(stats, "buffers.dmabuf_imports")
    released = stat(stats, "buffers.released_after_render") + stat(stats, "buffers.released_unsampled")
    check(stat(stats, "buffers.released_after_render") >= 1 and released >= 80,
          f"dma-bufs went back to the client after the frames that sampled them "
          f"({stat(stats, 'buffers.released_after_render')} after render, "
          f"{stat(stats, 'buffers.released_unsampled')} never sampled)")
    check(stat(stats, "buffers.dmabuf_reimports") == 0, "no buffer was imported twice")
    check(stat(stats, "buffers.dmabuf_texture_reuses") >= 80, f"frames reused the imported textures "
          f"({stat(stats, 'buffers.dmabuf_texture_reuses')})")
    # Where frames are composed on the CPU, linear XRGB buffers are mapped instead of imported with EGL.
    mapped = stat(stats, "buffers.dmabuf_mapped")
    check(imports + mapped == stat(stats, "buffers.dmabuf_buffers_created"),
          f"one import or mapping per buffer ({imports} imports, {mapped} mapped, "
          f"{stat(stats, 'buffers.dmabuf_buffers_created')} buffers)")
    check(stat(stats, "buffers.dmabuf_requests_refused") >= 400, "refusals were counted")
    # GL drew the frames into the output ring's buffers, one full-size render buffer each; binding a buffer only to
    # commit it or to read its memory makes none (wlroots' never-drawn swapchain buffer had one: 8 MiB at 1080p).
    check(stat(stats, "buffers.cpu_render_targets") <= stat(stats, "frames.ring_slots"),
          f"a GL render buffer only for each ring slot GL drew into ({stat(stats, 'buffers.cpu_render_targets')} "
          f"render buffers, {stat(stats, 'frames.ring_slots')} slots)")


run_test(main)
