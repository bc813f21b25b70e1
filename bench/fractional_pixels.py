#!/usr/bin/env python3
"""Client pixels drawn per frame at a fractional output scale, with and without wp_fractional_scale_v1.

Runs Chromium (Ozone Wayland, software drawing) on a headless kiln whose output is at --scale (default 1.5), its
window --window logical pixels, showing a page that redraws every animation frame, twice: as it is (it binds
wp_fractional_scale_manager_v1 and draws at the output's scale) and with the protocol turned off in Chromium
(--disable-features=WaylandFractionalScaleV1: it draws at the next whole scale, wl_output.scale, and kiln scales
that down). From Chromium's own WAYLAND_DEBUG log: the size of every buffer it commits to its window's surface
and how many frames it commits in --seconds. Prints a markdown table and, with --out FILE, writes it there as JSON.

Usage: fractional_pixels.py [--build DIR] [--scale S] [--window WxH] [--seconds N] [--out FILE]
A benchmark, never a test: nothing here passes or fails on a number (bench_smoke only checks it runs)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAGE = """<!doctype html><html><head><style>html,body{margin:0;overflow:hidden;background:#000}</style></head>
<body><canvas id="c" style="display:block;width:100vw;height:100vh"></canvas><script>
let n = 0;
function frame() {
  const d = devicePixelRatio, c = document.getElementById("c");
  c.width = Math.round(innerWidth * d); c.height = Math.round(innerHeight * d);
  const x = c.getContext("2d");
  x.fillStyle = "hsl(" + (n++ * 7 % 360) + ",80%,50%)"; x.fillRect(0, 0, c.width, c.height);
  x.fillStyle = "#fff"; x.font = (14 * d) + "px sans-serif"; x.fillText("frame " + n, 10 * d, 30 * d);
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
</script></body></html>"""

USAGE = "usage: fractional_pixels.py [--build DIR] [--scale S] [--window WxH] [--seconds N] [--out FILE]"


def parse(argv):
    opts = {"build": Path(__file__).resolve().parents[1] / "build", "scale": 1.5, "window": (600, 400),
            "seconds": 5.0, "out": None}
    i = 0
    try:
        while i < len(argv):
            flag, value = argv[i], argv[i + 1] if i + 1 < len(argv) else None
            if flag == "--build":
                opts["build"] = Path(value)
            elif flag == "--scale":
                opts["scale"] = float(value)
                if not 0.25 <= opts["scale"] <= 10:
                    raise ValueError
            elif flag == "--window":
                w, h = (int(v) for v in value.split("x"))
                if w < 100 or h < 100:
                    raise ValueError
                opts["window"] = (w, h)
            elif flag == "--seconds":
                opts["seconds"] = float(value)
                if opts["seconds"] <= 0:
                    raise ValueError
            elif flag == "--out":
                opts["out"] = Path(value)
            else:
                raise ValueError
            i += 2
    except (TypeError, ValueError):
        print(USAGE, file=sys.stderr)
        sys.exit(2)
    return opts


def run_chromium(opts, scratch, fractional):
    """One Chromium on its own headless kiln; returns what its log says it drew in the measured seconds."""
    scale, (ww, wh) = opts["scale"], opts["window"]
    runtime = scratch / ("rt-frac" if fractional else "rt-int")
    runtime.mkdir(mode=0o700)
    config = scratch / "kiln.ini"
    config.write_text(f"[output HEADLESS-1]\nscale={scale}\n")
    size = f"{round(ww * scale) + 200}x{round(wh * scale) + 200}"
    env = dict(os.environ, XDG_RUNTIME_DIR=str(runtime), XDG_CONFIG_HOME=str(scratch / "cfg"),
               HOME=str(scratch / "home"))
    env.pop("WAYLAND_DISPLAY", None)
    env.pop("DISPLAY", None)
    kiln = subprocess.Popen([str(opts["build"] / "compositor" / "kiln"), "--backend", "headless", "--headless-size",
                             size, "--socket", "wl-bench", "--config", str(config)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    log = scratch / ("chromium-frac.log" if fractional else "chromium-int.log")
    try:
        deadline = time.monotonic() + 20
        while not (runtime / "wl-bench").exists():
            if time.monotonic() > deadline or kiln.poll() is not None:
                raise RuntimeError("kiln did not start")
            time.sleep(0.05)
        argv = ["chromium", "--ozone-platform=wayland", "--no-sandbox", "--disable-gpu",
                f"--user-data-dir={scratch / ('ud-frac' if fractional else 'ud-int')}", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", f"--window-size={ww},{wh}",
                f"--app=file://{scratch / 'page.html'}"]
        if not fractional:
            argv.insert(1, "--disable-features=WaylandFractionalScaleV1")
        with open(log, "w") as out:
            chromium = subprocess.Popen(argv, env=dict(env, WAYLAND_DISPLAY="wl-bench", WAYLAND_DEBUG="1"),
                                        stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        # Measured from the first frame of the page (its title says it ran) for the given seconds.
        deadline = time.monotonic() + 90
        while "frame " not in log.read_text(errors="replace") and 'title("' not in log.read_text(errors="replace"):
            if time.monotonic() > deadline:
                raise RuntimeError("Chromium drew nothing in 90 s")
            time.sleep(0.2)
        time.sleep(2)  # past start-up
        start = log.stat().st_size
        time.sleep(opts["seconds"])
        with open(log, errors="replace") as f:
            f.seek(start)
            window = f.read()
        chromium.terminate()
        try:
            chromium.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(chromium.pid, 9)
    finally:
        kiln.terminate()
        kiln.wait(10)
    text = log.read_text(errors="replace")
    sizes = {m.group(1): (int(m.group(2)), int(m.group(3)))
             for m in re.finditer(r"create_buffer\(new id wl_buffer#(\d+), \d+, (\d+), (\d+), \d+, \d+\)", text)}
    # Frames: attaches of a window-sized buffer in the measured window (the cursor's small buffers are left out).
    attached = [sizes.get(b) for b in re.findall(r"wl_surface#\d+\.attach\(wl_buffer#(\d+)", window)]
    frames = [s for s in attached if s and s[0] >= ww and s[1] >= wh]
    geometry = re.findall(r"set_window_geometry\(\d+, \d+, (\d+), (\d+)\)", text)
    told = re.findall(r"preferred_scale\((\d+)\)", text)
    buffer = max(frames, key=lambda s: s[0] * s[1]) if frames else None
    return {"fractional_scale": fractional, "bound_fractional_scale": "get_fractional_scale(" in text,
            "preferred_scale_120ths": int(told[-1]) if told else None,
            "window_geometry": [int(v) for v in geometry[-1]] if geometry else None,
            "buffer": list(buffer) if buffer else None,
            "pixels_per_frame": buffer[0] * buffer[1] if buffer else None,
            "frames": len(frames), "seconds": opts["seconds"]}


def main():
    opts = parse(sys.argv[1:])
    if shutil.which("chromium") is None:
        print("fractional_pixels: chromium is not installed (Debian package chromium): nothing measured",
              file=sys.stderr)
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="kiln-bench-fractional-") as tmp:
        scratch = Path(tmp)
        (scratch / "page.html").write_text(PAGE)
        rows = [run_chromium(opts, scratch, True), run_chromium(opts, scratch, False)]
    frac, whole = rows
    ratio = (frac["pixels_per_frame"] / whole["pixels_per_frame"]
             if frac["pixels_per_frame"] and whole["pixels_per_frame"] else None)
    print(f"Chromium {opts['window'][0]}x{opts['window'][1]} at output scale {opts['scale']}, {opts['seconds']} s each\n")
    print("| Chromium | bound wp_fractional_scale | told (/120) | window | buffer | pixels per frame | frames |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        name = "as it is" if r["fractional_scale"] else "--disable-features=WaylandFractionalScaleV1"
        print(f"| {name} | {'yes' if r['bound_fractional_scale'] else 'no'} | {r['preferred_scale_120ths'] or '-'} | "
              f"{'x'.join(map(str, r['window_geometry'])) if r['window_geometry'] else '-'} | "
              f"{'x'.join(map(str, r['buffer'])) if r['buffer'] else '-'} | {r['pixels_per_frame'] or '-'} | "
              f"{r['frames']} |")
    print(f"\npixels per frame, fractional ÷ whole scale: {ratio:.4f}" if ratio else "\nno ratio: a run drew nothing")
    if opts["out"]:
        opts["out"].write_text(json.dumps({"runs": rows, "ratio": ratio, "scale": opts["scale"],
                                           "window": list(opts["window"])}, indent=2))


if __name__ == "__main__":
    main()
