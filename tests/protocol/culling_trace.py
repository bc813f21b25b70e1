#!/usr/bin/env python3
"""Culling seen by the GL driver, not by kiln: Mesa's gallium trace (GALLIUM_TRACE) records every draw kiln's GL
context hands llvmpipe and the texture it samples. Once an opaque fullscreen window covers two others, no draw
samples their textures, while a --debug-full-redraw run (nothing culled) draws them under it every frame; kiln's own
frames.culled_surfaces plays no part. Again at output scale 1.5 with the fullscreen window in ARGB8888 (opaque to kiln only
through its opaque region): culled there too."""
import os
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from kiln_harness import Kiln, check, client_binary, run_test, skip, wait_drawn  # noqa: E402

# Two windows, then a fullscreen one over both: each client's buffers have a size of their own, so a draw's texture
# size says whose it is.
BELOW = [("300x200", "3366cc"), ("260x180", "22aa44")]
FULLSCREEN = (640, 480)
FULLSCREEN_FRAMES = 40


def pointer(element):
    found = element.find("ptr") if element is not None else None
    return found.text if found is not None else None


def member(struct, name):
    for m in struct.iter("member"):
        if m.get("name") == name:
            return int(m[0].text)
    return None


def sampled_sizes(path):
    """For each draw_vbo in the trace, in order, the (width, height) of the texture in fragment sampler slot 0, or
    None when no texture is bound there."""
    sizes = {}   # pipe_resource -> (width, height)
    views = {}   # pipe_sampler_view -> pipe_resource
    bound = []   # fragment sampler slots -> pipe_sampler_view
    draws = []
    for _, call in ET.iterparse(path, events=("end",)):
        if call.tag != "call":
            continue
        method = call.get("method")
        args = {arg.get("name"): arg for arg in call.findall("arg")}
        if method in ("resource_create", "resource_from_handle"):
            template = args.get("templat", args.get("templ"))
            sizes[pointer(call.find("ret"))] = (member(template, "width"), member(template, "height"))
        elif method == "create_sampler_view":
            views[pointer(call.find("ret"))] = pointer(args["resource"])
        elif method == "set_sampler_views" and args["shader"][0].text == "MESA_SHADER_FRAGMENT":
            start, count = int(args["start"][0].text), int(args["num"][0].text)
            trailing = int(args["unbind_num_trailing_slots"][0].text)
            given = [pointer(elem) for elem in args["views"].iter("elem")] if count else []
            bound += [None] * (start + count + trailing - len(bound))
            for i in range(count + trailing):
                bound[start + i] = given[i] if i < len(given) else None
        elif method == "draw_vbo":
            view = bound[0] if bound else None
            draws.append(sizes.get(views.get(view)) if view else None)
        call.clear()
    return draws


def traced_scene(*args, fullscreen_args=()):
    """Runs the scene on kiln (GL composition: the trace sees only GL) with the trace on; the sampled sizes."""
    kiln = Kiln("--composition", "gl", *args, size=f"{FULLSCREEN[0]}x{FULLSCREEN[1]}")
    trace = Path(kiln.tmp) / "gallium-trace.xml"
    kiln.env["GALLIUM_TRACE"] = str(trace)  # kiln's only: the clients' environment was copied before
    if os.environ.get("KILN_SANITIZED"):
        # Mesa's trace driver leaks its wrapped contexts at exit (libgallium's own allocations, 1.6 MiB in 36 blocks
        # under LeakSanitizer, none of them kiln's): leak checking is off for this traced kiln only. Every other
        # test keeps it, and this one still fails on any ASan or UBSan report.
        kiln.env["ASAN_OPTIONS"] = kiln.env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    with kiln:
        for size, color in BELOW:
            wait_drawn(kiln.spawn([client_binary("kiln-demo-shm"), "--size", size, "--color", color,
                                   "--frames", "10", "--stay"]))
        wait_drawn(kiln.spawn([client_binary("kiln-demo-shm"), "--fullscreen", "--color", "884422",
                               "--frames", str(FULLSCREEN_FRAMES), "--stay", *fullscreen_args]))
        status, _ = kiln.stop()
        check(status == 0, f"kiln exits 0 ({' '.join(args) or 'culling'})")
        if not trace.exists():
            skip("the GL driver writes no gallium trace (GALLIUM_TRACE): not a Mesa gallium driver")
        try:
            return sampled_sizes(trace)
        except ET.ParseError as error:
            raise AssertionError(f"the gallium trace is not whole XML ({error})")


def after_fullscreen(draws, fullscreen=FULLSCREEN):
    """Draws from the fullscreen window's first on, counted by the size of the texture each sampled."""
    first = next((i for i, size in enumerate(draws) if size == fullscreen), None)
    check(first is not None, f"the trace shows the fullscreen window drawn ({len(draws)} draws)")
    counts = {}
    for size in draws[first:]:
        counts[size] = counts.get(size, 0) + 1
    return counts


def main():
    below = [tuple(int(n) for n in size.split("x")) for size, _ in BELOW]

    # The positive control: with nothing culled the trace does show the covered windows drawn under the fullscreen
    # one, frame after frame.
    reference = after_fullscreen(traced_scene("--debug-full-redraw"))
    frames = reference.get(FULLSCREEN, 0)
    check(frames >= FULLSCREEN_FRAMES // 2, f"--debug-full-redraw: the fullscreen window drawn in {frames} frames")
    for size in below:
        check(reference.get(size, 0) >= frames - 1,
              f"--debug-full-redraw: the covered {size[0]}x{size[1]} window sampled in each of them too "
              f"({reference.get(size, 0)} draws)")

    culled = after_fullscreen(traced_scene())
    frames = culled.get(FULLSCREEN, 0)
    check(frames >= FULLSCREEN_FRAMES // 2, f"culling: the fullscreen window drawn in {frames} frames")
    for size in below:
        check(culled.get(size, 0) == 0, f"culling: no draw the driver ran sampled the covered {size[0]}x{size[1]} "
              f"window ({culled.get(size, 0)} draws)")
    print(f"draws after the fullscreen window's first, by sampled texture size: culled {culled}, "
          f"full redraw {reference}")

    # At scale 1.5 the fullscreen window is 426x320 logical, its buffer as large (the client draws at 1x), and it
    # is opaque only by its opaque region.
    with tempfile.TemporaryDirectory(prefix="kiln-culling-trace-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text("[output HEADLESS-1]\nscale=1.5\n")
        fullscreen = (426, 320)
        scaled = after_fullscreen(traced_scene("--config", str(config), fullscreen_args=("--opaque-region",)),
                                  fullscreen)
    frames = scaled.get(fullscreen, 0)
    check(frames >= FULLSCREEN_FRAMES // 2, f"scale 1.5: the fullscreen window drawn in {frames} frames")
    for size in below:
        check(scaled.get(size, 0) == 0, f"scale 1.5, opaque region: no draw sampled the covered {size[0]}x{size[1]} "
              f"window ({scaled.get(size, 0)} draws)")
    print(f"scale 1.5: {scaled}")


run_test(main)
