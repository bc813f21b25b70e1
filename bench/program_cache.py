#!/usr/bin/env python3
"""Cold vs warm start of kiln (headless): shader readiness and first frame, with Mesa's own shader cache off
(MESA_SHADER_CACHE_DISABLE=true, so only kiln's tiers and blob cache help) and on (cold runs get an empty Mesa cache).

Shader readiness is startup.programs_prepare_ms: every program the renderer uses linked and drawn once
(--precompile fast), split into fetching the programs (programs_fetch_ms: compile and link, or read from kiln's cache
and hand the binary to the driver; kiln's reads alone are programs.histograms.disk_read_ms) and their first draws
(programs_first_draw_ms: the driver's JIT). Prints a markdown table of medians; target: warm <= 5 % of cold.
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


def run_kiln(build, cache_dir, mesa_cache, env_extra):
    runtime = tempfile.mkdtemp(prefix="kiln-bench-")
    stats = Path(runtime) / "stats.json"
    env = dict(os.environ, XDG_RUNTIME_DIR=runtime, **env_extra)
    if mesa_cache:
        env["MESA_SHADER_CACHE_DIR"] = str(mesa_cache)
    for var in ("WAYLAND_DISPLAY", "DISPLAY"):
        env.pop(var, None)
    result = subprocess.run([str(build / "compositor" / "kiln"), "--backend", "headless", "--socket", "bench",
                             "--cache-dir", str(cache_dir), "--stats", str(stats), "--precompile", "fast",
                             "-s", "true", "--exit-with-startup"], env=env, capture_output=True, timeout=60)
    if result.returncode != 0:
        sys.exit(f"kiln failed: {result.stderr.decode(errors='replace')[-500:]}")
    data = json.loads(stats.read_text())
    shutil.rmtree(runtime, ignore_errors=True)
    return data


def measure(build, runs, mesa_disabled):
    rows = {"cold": [], "warm": []}
    for _ in range(runs):
        work = Path(tempfile.mkdtemp(prefix="kiln-bench-cache-"))
        env = {"MESA_SHADER_CACHE_DISABLE": "true"} if mesa_disabled else {}
        mesa = None if mesa_disabled else work / "mesa"
        rows["cold"].append(run_kiln(build, work / "kiln", mesa, env))
        rows["warm"].append(run_kiln(build, work / "kiln", mesa, env))
        shutil.rmtree(work, ignore_errors=True)
    return rows


def median(rows, *path):
    """The median of a stats value over the runs; None where a run lacks it (no frame before --exit-with-startup)."""
    values = []
    for r in rows:
        node = r
        for p in path:
            node = node.get(p) if isinstance(node, dict) else None
        if node is None:
            return None
        values.append(node)
    return statistics.median(values)


def cache_reads_ms(rows):
    """kiln's own part of its disk hits (open, read, checksum, decompress; the driver's glProgramBinary excluded),
    summed over a run's programs; the median over the runs."""
    sums = []
    for r in rows:
        h = r.get("programs", {}).get("histograms", {}).get("disk_read_ms", {})
        sums.append(h.get("mean", 0.0) * h.get("count", 0))
    return statistics.median(sums) if sums else None


def cell(value, digits=1):
    return "-" if value is None else f"{value:.{digits}f}"


def main():
    here = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(here / "build"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    build = Path(args.build)
    print("| Mesa shader cache | start | shader readiness (ms) | programs fetched (ms) | of which kiln's cache reads "
          "(ms) | first-draw JIT (ms) | programs linked | from disk | blob hits | first frame (ms) "
          "| warm ÷ cold (readiness; fetch) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for disabled in (True, False):
        rows = measure(build, args.runs, disabled)
        cold = median(rows["cold"], "startup", "programs_prepare_ms")
        cold_fetch = median(rows["cold"], "startup", "programs_fetch_ms")
        for kind in ("cold", "warm"):
            r = rows[kind]
            ready = median(r, "startup", "programs_prepare_ms")
            fetch = median(r, "startup", "programs_fetch_ms")
            ratio = f"{100 * ready / cold:.1f} %; {100 * fetch / cold_fetch:.1f} %" if kind == "warm" else "-"
            print(f"| {'off' if disabled else 'on'} | {kind} | {ready:.1f} | {fetch:.1f} | {cell(cache_reads_ms(r), 2)} | "
                  f"{median(r, 'startup', 'programs_first_draw_ms'):.1f} | "
                  f"{median(r, 'programs', 'linked_from_source'):.0f} | {median(r, 'programs', 'loaded_from_disk'):.0f} | "
                  f"{median(r, 'programs', 'blob_hits'):.0f} | {cell(median(r, 'startup', 'first_frame_ms'))} | {ratio} |")


if __name__ == "__main__":
    main()
