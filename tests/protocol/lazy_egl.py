#!/usr/bin/env python3
"""Lazy EGL: with CPU composition (GL is llvmpipe) and a warm cache, kiln starts without EGL (no Mesa driver mapped,
stats say "not started") and shows shm windows; the first dma-buf client EGL must import brings EGL up and its frame equals a full
GL redraw of the same scene pixel for pixel; so does a window scaled by the output (GL draws it); a corrupted or
foreign cached display profile is discarded, EGL starts at once as on a cold start, and a good profile is written
back."""
import hashlib
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
SHM = ["--size", "300x200", "--color", "3366cc", "--frames", "20"]
# An implicit modifier: a dma-buf only EGL imports (a linear one is read on the CPU without EGL: dmabuf_on_cpu.py).
DMABUF = ["--source", "memfd", "--modifier", "implicit", "--size", "200x150", "--color", "cc3333", "--frames", "20"]


def gl_libraries_mapped(pid):
    maps = Path(f"/proc/{pid}/maps").read_text()
    return sorted({Path(m).name for m in re.findall(r"(/\S+\.so[.\d]*)", maps)
                   if any(Path(m).name.startswith(lib) for lib in GL_LIBRARIES)})


def profile_files(cache):
    return sorted((Path(cache) / "kiln").glob("v*/displays/*"))


def shm_scene(kiln, with_dmabuf=False):
    wait_drawn(kiln.spawn([client_binary("kiln-demo-shm"), *SHM, "--stay"]))
    if with_dmabuf:
        wait_drawn(kiln.spawn([client_binary("kiln-demo-dmabuf"), *DMABUF, "--stay"]))
    time.sleep(0.3)
    return kiln.screenshot()


def cold_start_stores_profile(cache):
    with Kiln(size="640x480", env={"XDG_CACHE_HOME": cache}) as kiln:
        shm_scene(kiln)
        status, stats = kiln.stop()
    check(status == 0, "kiln exits 0")
    check(stat(stats, "renderer.display_profile") == "probed, stored",
          f"a cold start probes the display and stores its profile ({stat(stats, 'renderer.display_profile')})")
    check(stat(stats, "renderer.egl_display") != "not started", "a cold start opens EGL at once")
    check(len(profile_files(cache)) == 1, f"one profile file in the cache ({profile_files(cache)})")
    return stat(stats, "renderer.composition")


def warm_start_without_egl(cache):
    with Kiln(size="640x480", env={"XDG_CACHE_HOME": cache}) as kiln:
        shot = shm_scene(kiln)
        mapped = gl_libraries_mapped(kiln.proc.pid)
        status, stats = kiln.stop()
    check(status == 0, "kiln exits 0")
    check(shot.count(rgb("3366cc"), tolerance=2) > 200 * 150, "the shm window is shown")
    check(mapped == [], f"no EGL driver library is mapped ({mapped})")
    check(stat(stats, "renderer.display_profile") == "cached", "the display profile came from the cache")
    check(stat(stats, "renderer.egl_display") == "not started" and stat(stats, "renderer.driver") == "not started",
          f"stats say EGL did not start ({stat(stats, 'renderer.egl_display')}, {stat(stats, 'renderer.driver')})")
    rendered = stat(stats, "frames.rendered")
    check(rendered > 0 and stat(stats, "frames.composed_on_cpu") == rendered,
          f"every frame was composed on the CPU ({stat(stats, 'frames.composed_on_cpu')} of {rendered})")


def dmabuf_brings_egl_up(cache):
    with Kiln(size="640x480", env={"XDG_CACHE_HOME": cache}) as kiln:
        wait_drawn(kiln.spawn([client_binary("kiln-demo-shm"), *SHM, "--stay"]))
        before = gl_libraries_mapped(kiln.proc.pid)
        wait_drawn(kiln.spawn([client_binary("kiln-demo-dmabuf"), *DMABUF, "--stay"]))
        time.sleep(0.3)
        shot = kiln.screenshot()
        after = gl_libraries_mapped(kiln.proc.pid)
        status, stats = kiln.stop()
    check(status == 0, "kiln exits 0")
    check(before == [], f"before the dma-buf client no EGL driver is mapped ({before})")
    check(any(name.startswith("libgallium") or name.startswith("libEGL_mesa") for name in after),
          f"the dma-buf client brought EGL up ({after})")
    check(stat(stats, "renderer.egl_started_by") == "a dma-buf import",
          f"stats say what started EGL ({stat(stats, 'renderer.egl_started_by')})")
    check(stat(stats, "renderer.egl_display") not in ("not started", ""),
          f"and name the display once it started ({stat(stats, 'renderer.egl_display')}, "
          f"{stat(stats, 'renderer.driver')})")
    check(stat(stats, "buffers.dmabuf_imports") >= 1, "the dma-buf was imported")
    check(shot.count(rgb("cc3333"), tolerance=2) == 200 * 150, "the whole dma-buf window is shown")
    # The reference: the same scene, every frame drawn whole by GL.
    with Kiln("--debug-full-redraw", "--composition", "gl", size="640x480") as kiln:
        reference = shm_scene(kiln, with_dmabuf=True)
        kiln.stop()
    differing = sum(1 for i in range(0, len(shot.pixels), 3) if shot.pixels[i:i + 3] != reference.pixels[i:i + 3])
    check(differing == 0, f"the frame after EGL started late equals a full GL redraw ({differing} pixels differ)")


def scaled_frame_brings_egl_up(cache):
    """At output scale 2 an shm window is not 1:1, so its frames need GL: EGL starts with the first of them."""
    config = Path(cache) / "kiln.ini"
    config.write_text("[output HEADLESS-1]\nscale=2\n")
    with Kiln("--config", str(config), size="640x480", env={"XDG_CACHE_HOME": cache}) as kiln:
        time.sleep(0.3)
        before = gl_libraries_mapped(kiln.proc.pid)
        shot = shm_scene(kiln)
        status, stats = kiln.stop()
    config.unlink()
    check(status == 0, "kiln exits 0")
    check(before == [], f"with only the background on screen no EGL driver is mapped ({before})")
    check(stat(stats, "renderer.egl_started_by") == "a frame drawn with GL",
          f"the scaled window's frame started EGL ({stat(stats, 'renderer.egl_started_by')})")
    check(stat(stats, "frames.composed_on_cpu") < stat(stats, "frames.rendered"), "frames were drawn with GL")
    box = shot.bounding_box(rgb("3366cc"), tolerance=2)
    window = shot.count(rgb("3366cc"), tolerance=2) + shot.count((255, 255, 255), tolerance=2)  # its white squares
    check(box is not None and box[2] - box[0] == 600 and box[3] - box[1] == 400 and window >= 0.98 * 600 * 400,
          f"the 300x200 window is shown at twice its size ({box}, {window} of its 600x400 pixels)")


def rewrite_key(text, key):
    """A profile whose checksum is right but whose key names another driver."""
    body = re.sub(r"^key [0-9a-f]+$", f"key {key}", text.split("sha256 ")[0], flags=re.M)
    return body + "sha256 " + hashlib.sha256(body.encode()).hexdigest() + "\n"


def bad_profile_is_discarded(cache, damage, expected_reason):
    [path] = profile_files(cache)
    good = path.read_text()
    path.write_text(damage(good))
    with Kiln(size="640x480", env={"XDG_CACHE_HOME": cache}) as kiln:
        shm_scene(kiln)
        log = kiln.logs()
        status, stats = kiln.stop()
    check(status == 0, "kiln exits 0")
    check(f"cached display profile not used: {expected_reason}" in log,
          f"kiln says why it did not use the profile ({expected_reason})")
    check(stat(stats, "renderer.display_profile") == "probed, stored" and
          stat(stats, "renderer.egl_display") != "not started",
          f"it probed the display with EGL at start instead ({stat(stats, 'renderer.display_profile')})")
    check(profile_files(cache) == [path] and path.read_text() == good, "and wrote the good profile back")


def main():
    need("grim")
    with tempfile.TemporaryDirectory(prefix="kiln-lazy-egl-") as cache:
        composition = cold_start_stores_profile(cache)
        if composition == "gl":
            print("SKIP: GL is not software here, so frames are not composed on the CPU and EGL starts with kiln")
            sys.exit(77)
        warm_start_without_egl(cache)
        dmabuf_brings_egl_up(cache)
        scaled_frame_brings_egl_up(cache)
        bad_profile_is_discarded(cache, lambda text: text.replace("\nsoftware 1\n", "\nsoftware 0\n", 1),
                                 "checksum mismatch")
        bad_profile_is_discarded(cache, lambda text: rewrite_key(text, "0" * 40), "made for another driver")
        bad_profile_is_discarded(cache, lambda text: text[:len(text) // 2], "no checksum")
        warm_start_without_egl(cache)


run_test(main)
