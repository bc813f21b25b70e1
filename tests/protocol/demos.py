#!/usr/bin/env python3
"""kiln's demo clients show their colours, shm uploads only the damage, --stats reports the promised keys, and
scripts/run's two demo windows (its own command lines) both show, neither hidden on the other."""
import re
import shlex
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, client_binary, rgb, run_test, stat  # noqa: E402

KEYS = ["startup.egl_init_ms", "startup.programs_ready_ms", "startup.first_frame_ms", "programs.linked_from_source",
        "buffers.shm_upload_bytes", "buffers.dmabuf_imports", "frames.rendered", "frames.cpu_ms_p50"]


def damage_only_upload():
    """The shm demo alone: it changes two 48x48 squares a frame, far less than its 320x240 window. Composed by GL
    (a CPU-composed frame reads shm where it lies: frame_pipeline shows that nothing is copied then)."""
    with Kiln("--composition", "gl", size="800x600") as kiln:
        result = kiln.run([client_binary("kiln-demo-shm"), "--size", "320x240", "--frames", "60"], timeout=60)
        check(result.returncode == 0, f"kiln-demo-shm ran 60 frames ({result.stdout.strip()})")
        status, stats = kiln.stop()
    check(status == 0, f"kiln exits 0 (got {status})")
    uploaded = stat(stats, "buffers.shm_upload_bytes")
    window = 320 * 240 * 4
    check(uploaded >= window, f"the first frame uploads the whole window ({uploaded} bytes)")
    # Each buffer is uploaded whole once when wlroots first sees it; after that only damage.
    check(uploaded < 4 * window,
          f"shm uploads are damage-only: {uploaded} bytes for 60 frames = {uploaded / window:.2f} windows")


def idle_renders_nothing():
    """Outputs render only when something changed: an idle kiln with a still window stops drawing."""
    with Kiln(size="640x480") as kiln:
        time.sleep(1.5)
        status, idle = kiln.stop()
    check(stat(idle, "frames.rendered") <= 2, f"1.5 s of idle renders at most the first frame or two "
          f"({stat(idle, 'frames.rendered')})")


def scripts_run_demos_both_show():
    """scripts/run's demos, as it starts them (read from the script) on its default 1920x1080 headless output: the
    window on top is whole, and the one under it shows at least a cascade step (32 px) beyond it on some side, so
    a first look sees two windows, not one inside the other."""
    script = (Path(__file__).resolve().parents[2] / "scripts" / "run").read_text()
    line = next(line for line in script.splitlines() if line.startswith("demos=("))
    commands = re.findall(r'-s "([^"]+)"', line)
    check(len(commands) == 2, f"scripts/run starts two demos ({commands})")
    colours = []
    with Kiln(size="1920x1080") as kiln:
        for command in commands:
            argv = shlex.split(command)
            argv[0] = client_binary(Path(argv[0]).name)
            kiln.spawn(argv)
            colours.append(rgb(argv[argv.index("--color") + 1]))
        for colour in colours:
            kiln.wait_for(lambda: kiln.screenshot().count(colour, step=4) > 1000, f"the demo window {colour}")
        shot = kiln.screenshot()
        first, second = (shot.bounding_box(colour, tolerance=4) for colour in colours)
    step = 32  # placement's cascade step

    def hidden_on(inner, outer):
        return (inner[0] > outer[0] - step and inner[1] > outer[1] - step and inner[2] < outer[2] + step and
                inner[3] < outer[3] + step)
    check(not hidden_on(first, second) and not hidden_on(second, first),
          f"scripts/run's demo windows {first} and {second}: each shows a cascade step beyond the other")


def main():
    scripts_run_demos_both_show()
    idle_renders_nothing()
    damage_only_upload()
    with Kiln(size="800x600") as kiln:
        shm = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "320x240", "--color", "3366cc"])
        egl = kiln.spawn([client_binary("kiln-demo-egl"), "--size", "200x150", "--color", "cc3333"])
        blue = rgb("3366cc")
        red = rgb("cc3333")
        kiln.wait_for(lambda: kiln.screenshot().count(blue, step=2) > 5000, "kiln-demo-shm's blue window")
        kiln.wait_for(lambda: kiln.screenshot().count(red, step=2) > 3000, "kiln-demo-egl's red window")
        shot = kiln.screenshot()
        box = shot.bounding_box(blue, tolerance=4)
        check(box is not None, f"the shm window's blue region is at {box}")
        x0, y0, x1, y1 = box
        check(300 <= x1 - x0 <= 320 and 200 <= y1 - y0 <= 240,
              f"the shm window is about 320x240 on screen ({x1 - x0}x{y1 - y0}; the red window may overlap it)")
        check(shot.count((255, 255, 255), tolerance=4) >= 48 * 48, "the sliding white squares are drawn")
        check(shm.poll() is None and egl.poll() is None, "both demos still run")
        status, stats = kiln.stop()

    check(status == 0, f"kiln exits 0 on SIGTERM (got {status})")
    for key in KEYS:
        value = stat(stats, key)
        check(isinstance(value, (int, float)), f"stats has {key} = {value}")
    frames = stat(stats, "frames.rendered")
    check(frames >= 10, f"kiln rendered frames ({frames})")
    check(0 < stat(stats, "startup.egl_init_ms") <= stat(stats, "startup.first_frame_ms"),
          "EGL came up before the first frame")
    check(stat(stats, "programs.linked_from_source") >= 1, "programs were linked")
    on_cpu = stat(stats, "frames.composed_on_cpu") == frames
    check(stat(stats, "buffers.shm_upload_bytes") > 0 or on_cpu,
          "shm bytes were uploaded (none when every frame was composed on the CPU, which reads shm in place)")


run_test(main)
