#!/usr/bin/env python3
"""The program cache and start-up on whatever GPU this machine has (issue 22's table), in one command: bench/gpu.sh.

kiln-bench-shader-readiness (EGL display, renderer, every program linked and drawn once through kiln's cache in a
given directory), with the driver's own shader disk cache (NVIDIA's __GL_SHADER_DISK_CACHE_PATH, Mesa's
MESA_SHADER_CACHE_DIR) off or warm, and the kiln compositor itself (headless, GL, --precompile fast), which places
the driver's cache inside its --cache-dir: cold, warm, and cold again after kiln-cache clear. Medians and ranges over
--runs runs; writes a markdown table to stdout and to --out. Rows that need NVIDIA's driver are skipped elsewhere,
with the reason.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

# Every variable that moves or turns off a driver's shader cache: the runs set exactly what they need.
DRIVER_CACHE_VARIABLES = ("MESA_SHADER_CACHE_DIR", "MESA_GLSL_CACHE_DIR", "MESA_SHADER_CACHE_DISABLE",
                          "MESA_SHADER_CACHE_MAX_SIZE", "MESA_DISK_CACHE_MULTI_FILE", "MESA_DISK_CACHE_SINGLE_FILE",
                          "MESA_DISK_CACHE_DATABASE", "__GL_SHADER_DISK_CACHE", "__GL_SHADER_DISK_CACHE_PATH",
                          "__GL_SHADER_DISK_CACHE_SIZE")


class Bench:
    def __init__(self, build, work):
        self.build = build
        self.work = work
        home = work / "home"
        (home / ".cache").mkdir(parents=True)
        # A private HOME and XDG_CACHE_HOME: no run reads the user's ~/.cache/nvidia or ~/.cache/mesa_shader_cache.
        self.env = {k: v for k, v in os.environ.items()
                    if k not in DRIVER_CACHE_VARIABLES and k not in ("WAYLAND_DISPLAY", "DISPLAY")}
        self.env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
        self.fresh = 0

    def new_dir(self, what):
        self.fresh += 1
        path = self.work / f"{what}-{self.fresh}"
        path.mkdir(mode=0o700)
        return path

    def driver_env(self, vendor, driver_dir):
        """The driver's own cache off (driver_dir None) or in driver_dir."""
        if driver_dir is None:
            return {"MESA_SHADER_CACHE_DISABLE": "true", "__GL_SHADER_DISK_CACHE": "0"}
        if vendor == "nvidia":
            return {"__GL_SHADER_DISK_CACHE": "1", "__GL_SHADER_DISK_CACHE_PATH": str(driver_dir),
                    "MESA_SHADER_CACHE_DISABLE": "true"}
        return {"MESA_SHADER_CACHE_DIR": str(driver_dir), "__GL_SHADER_DISK_CACHE": "0"}

    def readiness(self, kiln_dir, extra_env):
        r = subprocess.run([str(self.build / "bench" / "kiln-bench-shader-readiness"), str(kiln_dir)],
                           env=dict(self.env, **extra_env), capture_output=True, text=True, timeout=120)
        if r.returncode == 77:
            sys.exit(f"gpu.sh: no EGL display here ({r.stderr.strip()})")
        if r.returncode != 0:
            sys.exit(f"gpu.sh: kiln-bench-shader-readiness failed: {r.stderr[-400:]}")
        return json.loads(r.stdout)

    def kiln(self, cache_dir, extra_env=None):
        runtime = self.new_dir("runtime")
        stats = runtime / "stats.json"
        r = subprocess.run([str(self.build / "compositor" / "kiln"), "--backend", "headless", "--socket", "gpu-bench",
                            "--cache-dir", str(cache_dir), "--composition", "gl", "--precompile", "fast",
                            "--stats", str(stats), "-s", "true", "--exit-with-startup"],
                           env=dict(self.env, XDG_RUNTIME_DIR=str(runtime), **(extra_env or {})),
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            sys.exit(f"gpu.sh: kiln failed: {r.stderr[-400:]}")
        data = json.loads(stats.read_text())
        shutil.rmtree(runtime)
        return data

    def clear(self, cache_dir):
        r = subprocess.run([str(self.build / "tools" / "kiln-cache"), "--cache-dir", str(cache_dir), "clear"],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            sys.exit(f"gpu.sh: kiln-cache clear failed: {r.stderr.strip()}")


def spread(values, digits=1):
    if not values:
        return "-"
    med = statistics.median(values)
    if len(values) == 1:
        return f"{med:.{digits}f}"
    return f"{med:.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def identify(bench):
    """GL vendor and driver from one kiln start (its --stats), for the labels and the NVIDIA-only rows."""
    data = bench.kiln(bench.new_dir("identify"))
    renderer = data.get("renderer", {})
    vendor = "nvidia" if "nvidia" in renderer.get("gl_vendor", "").lower() else "mesa"
    return vendor, renderer


def readiness_rows(bench, vendor, runs):
    rows = []
    driver = "NVIDIA's" if vendor == "nvidia" else "Mesa's"
    off = bench.driver_env(vendor, None)

    cold = [bench.readiness(bench.new_dir("kiln"), off) for _ in range(runs)]
    rows.append(("cold (no kiln cache, the driver's disk cache off)", cold))

    kiln_dir = bench.new_dir("kiln")
    bench.readiness(kiln_dir, off)
    rows.append(("warm, **kiln's cache only** (the driver's off)", [bench.readiness(kiln_dir, off) for _ in range(runs)]))

    driver_dir = bench.new_dir("driver")
    bench.readiness(bench.new_dir("kiln"), bench.driver_env(vendor, driver_dir))
    rows.append((f"warm, {driver} own disk cache only (fresh kiln cache each run)",
                 [bench.readiness(bench.new_dir("kiln"), bench.driver_env(vendor, driver_dir)) for _ in range(runs)]))

    both_kiln, both_driver = bench.new_dir("kiln"), bench.new_dir("driver")
    bench.readiness(both_kiln, bench.driver_env(vendor, both_driver))
    rows.append(("warm, both", [bench.readiness(both_kiln, bench.driver_env(vendor, both_driver)) for _ in range(runs)]))

    cold_median = statistics.median(r["programs_ms"] for r in cold)
    lines = ["| case | programs ready (ms: linked + first draw) | ÷ cold | EGL display + context (ms) | linked "
             "| from kiln's disk |", "|---|---|---|---|---|---|"]
    for label, results in rows:
        ready = [r["programs_ms"] for r in results]
        lines.append(f"| {label} | {spread(ready)} | {100 * statistics.median(ready) / cold_median:.0f} % "
                     f"| {spread([r['egl_ms'] for r in results])} "
                     f"| {statistics.median(r['linked_from_source'] for r in results):.0f} "
                     f"| {statistics.median(r['loaded_from_disk'] for r in results):.0f} |")
    return lines


def compositor_rows(bench, vendor, runs):
    """kiln itself, which places the driver's cache in its own --cache-dir: its directory alone makes a warm start."""
    def start_row(label, results, cold_prepare):
        prepare = [r["startup"]["programs_prepare_ms"] for r in results]
        driver_bytes = [r.get("driver_caches", {}).get(vendor, {}).get("bytes", 0) for r in results]
        ratio = "-" if cold_prepare is None else f"{100 * statistics.median(prepare) / cold_prepare:.0f} %"
        return (f"| {label} | {spread([r['startup']['egl_init_ms'] for r in results])} | {spread(prepare)} | {ratio} "
                f"| {spread([r['startup']['programs_ready_ms'] for r in results])} "
                f"| {statistics.median(r['programs']['linked_from_source'] for r in results):.0f} "
                f"| {statistics.median(driver_bytes) / 1024:.0f} |")

    lines = ["| kiln compositor, headless, GL, --precompile fast | egl_init_ms | programs_prepare_ms | ÷ cold "
             "| programs_ready_ms | linked | driver cache in --cache-dir (KiB) |", "|---|---|---|---|---|---|---|"]
    cold = []
    for _ in range(runs):
        cold.append(bench.kiln(bench.new_dir("kiln")))
    cold_prepare = statistics.median(r["startup"]["programs_prepare_ms"] for r in cold)
    lines.append(start_row("cold (empty --cache-dir)", cold, None))
    cache = bench.new_dir("kiln")
    bench.kiln(cache)
    warm = [bench.kiln(cache) for _ in range(runs)]
    lines.append(start_row("warm: --cache-dir alone (kiln's tiers and the driver's cache inside it)", warm,
                           cold_prepare))
    after_clear = []
    for _ in range(runs):
        bench.clear(cache)
        after_clear.append(bench.kiln(cache))
    lines.append(start_row("after `kiln-cache clear`", after_clear, cold_prepare))
    # Where egl_init_ms goes (kiln's --stats startup.egl.*; the rest of egl_init_ms is kiln's own start before EGL).
    phases = [("vendor libraries (first EGL call)", "client_ms"), ("device enumeration", "devices_ms"),
              ("eglInitialize", "initialize_ms"), ("context + make current", "context_ms"),
              ("GL/EGL strings", "identify_ms")]
    parts = [f"{name} {spread([r['startup']['egl'][key] for r in warm])}" for name, key in phases]
    parts.append(f"format list and probe {spread([r['startup']['format_probe_ms'] for r in warm])}")
    parts.append(f"display profile (before EGL) {spread([r['startup']['display_profile_ms'] for r in warm])}")
    lines += ["", "egl_init_ms of the warm starts, by phase (ms): " + "; ".join(parts) + "."]
    return lines


def nvidia_rows(bench, vendor, renderer, runs):
    """Where NVIDIA's driver writes with kiln choosing, and whether kiln's directory alone warms it."""
    if vendor != "nvidia":
        lines = [f"NVIDIA-only rows skipped: GL_VENDOR is {renderer.get('gl_vendor') or 'unknown'!r}, not NVIDIA, so "
                 "__GL_SHADER_DISK_CACHE_PATH is read by no driver here (the rows above used Mesa's cache instead)."]
        nvidia_json = [p for d in ("/etc/glvnd/egl_vendor.d", "/usr/share/glvnd/egl_vendor.d")
                       for p in Path(d).glob("*nvidia*.json")]
        if nvidia_json:
            # kiln's device platform prefers Mesa's software device (renderer/egl_display.cpp).
            lines.append(f"NVIDIA's EGL vendor library is installed ({nvidia_json[0]}) but kiln's display is Mesa's: "
                         f"run with __EGL_VENDOR_LIBRARY_FILENAMES={nvidia_json[0]} to measure NVIDIA's.")
        return lines
    cache = bench.new_dir("kiln")
    bench.kiln(cache)
    glcache = cache / "nvidia" / "GLCache"
    home_cache = Path(bench.env["XDG_CACHE_HOME"]) / "nvidia"
    files = [p for p in glcache.rglob("*") if p.is_file()] if glcache.is_dir() else []
    return [f"NVIDIA's cache with kiln choosing: {len(files)} files, "
            f"{sum(p.stat().st_size for p in files) / 1024:.0f} KiB in --cache-dir/nvidia/GLCache; "
            f"{'nothing' if not home_cache.exists() else 'files (!)'} in $XDG_CACHE_HOME/nvidia."]


def main():
    here = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(here / "build"))
    parser.add_argument("--runs", type=int, default=5, help="runs per row (default 5)")
    parser.add_argument("--out", help="also write the markdown here")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be >= 1")
    build = Path(args.build).resolve()
    work = Path(tempfile.mkdtemp(prefix="kiln-gpu-bench-"))
    try:
        bench = Bench(build, work)
        vendor, renderer = identify(bench)
        lines = [f"GL: {renderer.get('gl_vendor', '?')} / {renderer.get('gl_renderer', '?')} / "
                 f"{renderer.get('gl_version', '?')}; EGL display {renderer.get('egl_display', '?')}; "
                 f"renderer.driver {renderer.get('driver', '?')!r}; {args.runs} runs per row, median (min–max).", ""]
        lines += readiness_rows(bench, vendor, args.runs) + [""]
        lines += compositor_rows(bench, vendor, args.runs) + [""]
        lines += nvidia_rows(bench, vendor, renderer, args.runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
