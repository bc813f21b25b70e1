#!/usr/bin/env python3
"""Linear dma-bufs on a software renderer: with frames composed on the CPU (GL is llvmpipe) and a warm cache, kiln
reads a linear XRGB8888 or XBGR8888 dma-buf through its own mapping of it, never starting EGL (no Mesa driver or LLVM
mapped in kiln, stats say "not started"), and shows the client's pixels exactly, also after the client rewrites the
buffer in place and commits it again. A dma-buf it cannot read so (NV12; an implicit modifier) still
goes through EGL, and once GL draws the frames a mapped buffer is sampled through an EGLImage made then (no
copy), which shows a rewritten buffer as it is now. memfd-backed buffers
always; udmabuf ones (real dma-bufs, reads bracketed by DMA_BUF_IOCTL_SYNC) where /dev/udmabuf exists."""
import os
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from kiln_harness import Kiln, check, client_binary, need, rgb, run_test, stat, wait_drawn  # noqa: E402

# Libraries only EGL's start loads: the llvmpipe driver and the JIT under it.
GL_LIBRARIES = ("libLLVM", "libgallium", "libEGL_mesa")
SIZE = (200, 150)


def gl_libraries_mapped(pid):
    maps = Path(f"/proc/{pid}/maps").read_text()
    return sorted({Path(m).name for m in re.findall(r"(/\S+\.so[.\d]*)", maps)
                   if any(Path(m).name.startswith(lib) for lib in GL_LIBRARIES)})


def dmabuf_client(kiln, source, color, *extra):
    """A --stay client drawn: its last frame's colour must be on screen now."""
    child = kiln.spawn([client_binary("kiln-demo-dmabuf"), "--source", source, "--size", f"{SIZE[0]}x{SIZE[1]}",
                        "--color", color, "--stay", *extra])
    wait_drawn(child)
    return child


def close(child, shown, message):
    check(shown, message)
    child.kill()
    child.wait(10)


def rewriting_client(kiln, source, first, last, fmt="xrgb8888"):
    """One buffer, filled with `first` and committed, then refilled in place with `last` and `first` by turns and
    committed again each frame with full damage; the 20th (last) frame leaves `last` in it."""
    return dmabuf_client(kiln, source, first, "--buffers", "1", "--rewrite", last, "--frames", "20", "--format", fmt)


def window_shown(kiln, color):
    """The whole window, exactly its colour, and nothing else in that colour."""
    shot = kiln.wait_for(lambda: (lambda s: s if s.count(rgb(color), tolerance=0) == SIZE[0] * SIZE[1] else None)(
        kiln.screenshot()), f"the {color} window", timeout=20)
    box = shot.bounding_box(rgb(color), tolerance=0)
    return box is not None and (box[2] - box[0], box[3] - box[1]) == SIZE


def read_on_cpu(cache, source):
    with Kiln(size="640x480", env={"XDG_CACHE_HOME": cache}) as kiln:
        rewriting_client(kiln, source, "cc3333", "33cc66")
        check(window_shown(kiln, "33cc66"), f"{source}: the rewritten buffer is shown as it is now, exactly")
        dmabuf_client(kiln, source, "3366cc", "--format", "xbgr8888", "--frames", "5")
        check(window_shown(kiln, "3366cc"), f"{source}: an XBGR8888 buffer is shown exactly (red and blue in place)")
        mapped = gl_libraries_mapped(kiln.proc.pid)
        status, stats = kiln.stop()
    check(status == 0, "kiln exits 0")
    check(mapped == [], f"{source}: no EGL driver library is mapped in kiln ({mapped})")
    check(stat(stats, "renderer.egl_display") == "not started" and stat(stats, "renderer.egl_started_by") == "",
          f"{source}: stats say EGL did not start ({stat(stats, 'renderer.egl_display')}, "
          f"{stat(stats, 'renderer.egl_started_by')!r})")
    check(stat(stats, "buffers.dmabuf_mapped") >= 2 and stat(stats, "buffers.dmabuf_imports") == 0,
          f"{source}: the buffers were mapped, none imported with EGL ({stat(stats, 'buffers.dmabuf_mapped')} "
          f"mapped, {stat(stats, 'buffers.dmabuf_imports')} imported)")
    rendered = stat(stats, "frames.rendered")
    check(rendered > 0 and stat(stats, "frames.composed_on_cpu") == rendered,
          f"{source}: every frame was composed on the CPU ({stat(stats, 'frames.composed_on_cpu')} of {rendered})")
    check(stat(stats, "buffers.released_after_render") >= 1,
          f"{source}: the buffers went back to the client after frames read them "
          f"({stat(stats, 'buffers.released_after_render')})")


def others_go_through_egl(cache, source):
    with Kiln(size="640x480", env={"XDG_CACHE_HOME": cache}) as kiln:
        # Windows cascade over each other: each is checked while it is on top, then closed.
        close(dmabuf_client(kiln, source, "cc3333", "--frames", "3"), window_shown(kiln, "cc3333") and
              gl_libraries_mapped(kiln.proc.pid) == [], f"{source}: a linear XRGB8888 buffer is shown without EGL")
        # An implicit modifier (a layout only the allocating driver knows) is not known to be linear: EGL imports it.
        close(dmabuf_client(kiln, source, "884422", "--modifier", "implicit", "--frames", "3"),
              window_shown(kiln, "884422"), f"{source}: the buffer of implicit modifier is shown")
        after_implicit = gl_libraries_mapped(kiln.proc.pid)
        # NV12 (two planes, YUV): EGL too; the demo fills it with the grey of the colour's green channel.
        dmabuf_client(kiln, source, "00aa00", "--format", "nv12", "--frames", "3")
        kiln.wait_for(lambda: kiln.screenshot().count(rgb("aaaaaa"), tolerance=2) == SIZE[0] * SIZE[1],
                      "the NV12 window's grey", timeout=20)
        # GL draws every frame now (NV12 has no CPU image); a mapped buffer rewritten in place is fetched again.
        rewriting_client(kiln, source, "2266ee", "ee6622")
        check(window_shown(kiln, "ee6622"), f"{source}: under GL, the rewritten mapped buffer is shown as it is now")
        status, stats = kiln.stop()
    check(status == 0, "kiln exits 0")
    check(any(name.startswith(("libgallium", "libEGL_mesa")) for name in after_implicit),
          f"{source}: the buffer of implicit modifier brought EGL up ({after_implicit})")
    check(stat(stats, "renderer.egl_started_by") == "a dma-buf import",
          f"{source}: stats say a dma-buf import started EGL ({stat(stats, 'renderer.egl_started_by')!r})")
    check(stat(stats, "buffers.dmabuf_imports") >= 2 and stat(stats, "buffers.dmabuf_mapped") >= 2,
          f"{source}: the implicit-modifier and NV12 ones imported with EGL, the linear ones mapped "
          f"({stat(stats, 'buffers.dmabuf_imports')} imported, {stat(stats, 'buffers.dmabuf_mapped')} mapped)")
    check(stat(stats, "frames.composed_on_cpu") < stat(stats, "frames.rendered"), f"{source}: GL drew frames")
    check(stat(stats, "buffers.shm_upload_bytes") == 0,
          f"{source}: GL sampled the mapped buffers in place, an EGLImage of each, nothing uploaded "
          f"({stat(stats, 'buffers.shm_upload_bytes')} bytes)")


def main():
    need("grim")
    with tempfile.TemporaryDirectory(prefix="kiln-dmabuf-cpu-") as cache:
        # A cold start probes the display with EGL and stores its profile; later starts are lazy.
        with Kiln(size="640x480", env={"XDG_CACHE_HOME": cache}) as kiln:
            time.sleep(0.3)
            status, stats = kiln.stop()
        check(status == 0, "the cold start exits 0")
        if stat(stats, "renderer.composition") == "gl":
            print("SKIP: GL is not software here, so frames are not composed on the CPU and dma-bufs go to EGL")
            sys.exit(77)
        sources = ["memfd"] + (["udmabuf"] if os.path.exists("/dev/udmabuf") else [])
        if len(sources) == 1:
            print("no /dev/udmabuf here: memfd-backed buffers only (DMA_BUF_IOCTL_SYNC is not exercised)")
        for source in sources:
            read_on_cpu(cache, source)
            others_go_through_egl(cache, source)


run_test(main)
