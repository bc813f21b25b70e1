"""kiln's frame pipeline, headless: culled, per-rectangle, age-aware frames equal a full redraw pixel for pixel;
translucent windows blend; so do windows with kiln's decorations (solid rectangles and title text buffers), recoloured
and removed; a window under an opaque fullscreen one is not drawn; a dma-buf rewritten in place shows its new pixels
without a new import or any shm upload; nothing is read back when nobody shows the pixels."""
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from kiln_harness import Kiln, check, client_binary, need, rgb, run_test, stat, wait_drawn  # noqa: E402

# Overlapping windows (kiln cascades them in this order), each animating with partial damage, then holding still.
SCENE = [
    ["--size", "300x200", "--color", "3366cc", "--frames", "40"],
    ["--size", "300x200", "--color", "22aa44", "--frames", "55"],
    ["--size", "260x180", "--color", "cc2222", "--alpha", "128", "--frames", "30"],
    ["--size", "200x120", "--color", "eeee00", "--frames", "70"],
]


def show_scene(kiln, scene):
    for args in scene:
        wait_drawn(kiln.spawn([client_binary("kiln-demo-shm"), *args, "--stay"]))
    time.sleep(0.3)  # a few idle frames: the ring's other slots would show stale damage here if ages were wrong
    return kiln.screenshot()


def blend(top, alpha, below):
    """Premultiplied source-over, the client filling `top` at `alpha` over an opaque `below`."""
    return tuple(round(t * alpha / 255) + round(b * (255 - alpha) / 255) for t, b in zip(top, below))


# Removed when the script exits (a weakref finalizer), so the test leaves nothing in TMPDIR.
SCRATCH = tempfile.TemporaryDirectory(prefix="kiln-frame-pipeline-")


def decorations_config():
    path = Path(SCRATCH.name) / "kiln.ini"
    path.write_text("[decorations]\nmode=server\n")
    return path


def show_decorated_scene(kiln):
    """SCENE with kiln's decorations (solid rectangles): each new window's focus recolours the one before, and a
    last decorated window that maps over the others and goes away takes its rectangles with it."""
    show_scene(kiln, [args + ["--server-decoration"] for args in SCENE])
    passing = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "150x90", "--color", "8844cc", "--frames", "20",
                          "--server-decoration"])
    check(passing.wait(20) == 0, "the passing decorated window drew its frames and left")
    time.sleep(0.3)
    return kiln.screenshot()


def scene_matches_full_redraw(composition, decorated=False):
    """`composition`: gl (llvmpipe draws) or auto (kiln composes these shm windows on the CPU). `decorated`: the
    windows have kiln's border and title bar."""
    extra = ["--config", str(decorations_config())] if decorated else []
    show = show_decorated_scene if decorated else (lambda kiln: show_scene(kiln, SCENE))
    label = f"{composition}{', decorated' if decorated else ''}"
    with Kiln("--composition", composition, *extra, size="640x480") as kiln:
        culled = show(kiln)
        status, stats = kiln.stop()
        check(status == 0, f"kiln exits 0 (status {status})")  # inside: a failure prints kiln's log
    check(stat(stats, "buffers.readback_bytes") == 0,
          f"[{label}] headless: no frame is read back into CPU memory (nothing shows it; screencopy reads "
          f"where the frame is)")
    on_cpu = stat(stats, "frames.composed_on_cpu")
    check(on_cpu == 0 if composition == "gl" else on_cpu == stat(stats, "frames.rendered"),
          f"[{label}] {on_cpu} of {stat(stats, 'frames.rendered')} frames composed on the CPU")
    if composition != "gl":
        # The pixels below equal GL's, read from the clients' own shm memory: not one byte was copied.
        check(stat(stats, "buffers.shm_upload_bytes") == 0,
              f"[{label}] the CPU composes the clients' shm buffers where they lie "
              f"({stat(stats, 'buffers.shm_upload_bytes')} bytes copied)")
    # The reference: every frame drawn whole by GL, blending everything, culling nothing.
    with Kiln("--debug-full-redraw", "--composition", "gl", *extra, size="640x480") as kiln:
        reference = show(kiln)
        kiln.stop()
    differing = sum(1 for i in range(0, len(culled.pixels), 3) if culled.pixels[i:i + 3] != reference.pixels[i:i + 3])
    check(differing == 0, f"[{label}] after {sum(int(a[5]) for a in SCENE)} partial-damage frames the culled, "
          f"per-rectangle frames equal a full GL redraw ({differing} pixels differ)")
    if decorated:
        check(culled.count(rgb("285577"), tolerance=0) > 1000 and culled.count(rgb("4c4c4c"), tolerance=0) > 1000,
              f"[{label}] the focused and unfocused windows' title bars and borders are drawn")
        check(culled.count(rgb("8844cc"), tolerance=2) == 0, f"[{label}] nothing is left of the window that went")
        if os.environ.get("KILN_TITLE_TEXT", "1") == "1":
            text = culled.count(rgb("ededed"), tolerance=2)
            check(text > 40, f"[{label}] the title bars show their titles (scene buffers; {text} text pixels)")
    over_black = blend(rgb("cc2222"), 128, (0, 0, 0))
    over_blue = blend(rgb("cc2222"), 128, rgb("3366cc"))
    over_green = blend(rgb("cc2222"), 128, rgb("22aa44"))
    blended = culled.count(over_black, tolerance=2) + culled.count(over_blue, tolerance=2) + \
        culled.count(over_green, tolerance=2)
    check(blended > 5000 and culled.count(rgb("cc2222"), tolerance=8) == 0,
          f"the translucent window blends over what is below it ({blended} blended pixels, none unblended)")
    check(culled.count(rgb("eeee00"), tolerance=2) > 15000, "the top window is drawn")


def covered_windows_are_culled():
    with Kiln(size="640x480") as kiln:
        for args in SCENE[:2]:
            wait_drawn(kiln.spawn([client_binary("kiln-demo-shm"), *args, "--stay"]))
        wait_drawn(kiln.spawn([client_binary("kiln-demo-shm"), "--fullscreen", "--color", "884422", "--frames", "60",
                               "--stay"]))
        shot = kiln.screenshot()
        status, stats = kiln.stop()
    check(status == 0, f"kiln exits 0 (status {status})")
    check(shot.count(rgb("884422"), tolerance=2) + shot.count((255, 255, 255), tolerance=2) == 640 * 480,
          "only the fullscreen window is on screen")
    check(shot.count(rgb("3366cc"), tolerance=8) == 0 and shot.count(rgb("22aa44"), tolerance=8) == 0,
          "nothing of the windows below shows through")
    check(stat(stats, "frames.culled_surfaces") > 0,
          f"windows wholly under the opaque fullscreen one were not drawn "
          f"({stat(stats, 'frames.culled_surfaces')} culled surface draws)")


def dmabuf_rewritten_in_place():
    frames = 40  # the last frame (39) is odd: the buffer holds the --rewrite colour
    with Kiln(size="640x480") as kiln:
        child = kiln.spawn([client_binary("kiln-demo-dmabuf"), "--source", "memfd", "--buffers", "1",
                            "--size", "200x150", "--color", "2266ee", "--rewrite", "ee6622",
                            "--frames", str(frames), "--stay"])
        wait_drawn(child)
        kiln.wait_for(lambda: kiln.screenshot().count(rgb("ee6622"), tolerance=2) == 200 * 150,
                      "the pixels written into the buffer last")
        status, stats = kiln.stop()
    check(status == 0, f"kiln exits 0 (status {status})")
    # An EGLImage, or where frames are composed on the CPU a mapping of the buffer (no EGL): one either way.
    imported = stat(stats, "buffers.dmabuf_imports") + stat(stats, "buffers.dmabuf_mapped")
    check(imported == 1 and stat(stats, "buffers.dmabuf_reimports") == 0,
          f"one import or mapping for the buffer's whole life ({imported})")
    check(stat(stats, "buffers.dmabuf_texture_reuses") >= frames - 2,
          f"every commit sampled the same image ({stat(stats, 'buffers.dmabuf_texture_reuses')} reuses)")
    check(stat(stats, "buffers.shm_upload_bytes") == 0, "no byte was uploaded: the dma-buf is sampled where it lies")


def main():
    need("grim")
    scene_matches_full_redraw("gl")
    scene_matches_full_redraw("auto")
    scene_matches_full_redraw("gl", decorated=True)
    scene_matches_full_redraw("auto", decorated=True)
    covered_windows_are_culled()
    dmabuf_rewritten_in_place()


run_test(main)
