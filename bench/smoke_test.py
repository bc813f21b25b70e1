#!/usr/bin/env python3
"""bench_smoke: bench/scenarios.py refuses bad arguments with its usage, measures one quick kiln run, and turns a
compositor that fails to start into a failed row while the run goes on; bench/gpu.sh writes its table here
(llvmpipe), skipping the NVIDIA-only rows with the reason; bench/outside_load.py measures kiln from outside;
bench/colour_cost.py measures undescribed and Display P3 windows. Usage: smoke_test.py BUILD_DIR."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "lib"))
from kiln_harness import check, need, run_test  # noqa: E402

SCENARIOS = Path(__file__).resolve().parent / "scenarios.py"


def scenarios(build, *args, timeout=200):
    return subprocess.run([sys.executable, str(SCENARIOS), "--build", str(build), *args], capture_output=True,
                          text=True, timeout=timeout)


def bad_arguments(build):
    for args in (["--bogus"], ["--only", "mutter"], ["--windows", "0"], ["--windows", "x"], ["--clients", "gtk"],
                 ["--startups", "0"]):
        r = scenarios(build, *args, timeout=30)
        check(r.returncode == 2 and "usage:" in r.stderr, f"{' '.join(args)} exits 2 with the usage")


def one_quick_kiln_run(build, out):
    r = scenarios(build, "--quick", "--only", "kiln", "--windows", "1", "--seconds", "2", "--clients", "simple-egl",
                  "--out", str(out))
    check(r.returncode == 0, f"the quick kiln run succeeds (stderr tail: {r.stderr[-400:]!r})")
    data = json.loads((out / "results.json").read_text())
    runs = [x for x in data["runs"] if x["compositor"] == "kiln"]
    check(len(runs) == 1 and "error" not in runs[0],
          f"one kiln window run without error ({runs[0].get('error') if runs else 'no run'})")
    run = runs[0]
    check(run["client_frames"] > 10, f"the client's commits were counted ({run['client_frames']})")
    check(run["compositor_cpu_s"] > 0 and run["cpu_ms_per_client_frame"] > 0,
          f"kiln's CPU was measured ({run['compositor_cpu_s']} s)")
    check(run["latency_kind"] == "commit→present" and len(run["latency_ms"]) > 10,
          f"the probe's presentation feedback was measured ({len(run['latency_ms'])} samples)")
    check(run["refresh_hz"] and 1 < run["refresh_hz"] < 1000, f"an output refresh was measured ({run['refresh_hz']})")
    check(run["peak_rss_mib"] > 1, f"kiln's peak RSS was read ({run['peak_rss_mib']:.1f} MiB)")
    labels = [s["compositor"] for s in data["startup_runs"] if "ready_ms" in s]
    check(labels == ["kiln (cold cache)", "kiln (warm cache)"], f"cold and warm start-up were measured: {labels}")
    check("| simple-egl | 1 | kiln |" in r.stdout, "the markdown table has the kiln row")
    ready = data["shader_readiness_runs"][0]
    check("error" not in ready and all(ready[k] > 0 for k in ("cold", "cold_fetch", "cold_first_draw")),
          f"shader readiness was measured, split into program fetch and first draws: {ready}")
    check(ready["cold_fetch"] + ready["cold_first_draw"] <= ready["cold"],
          "the two parts add up to no more than the whole")
    check("first draws: the driver's JIT" in r.stdout, "the markdown table shows the split")


def failing_compositor(build, scratch):
    """A build dir whose kiln exits at once: every kiln row is a failed one with its log, and the run still ends."""
    fake = scratch / "fake-build"
    (fake / "compositor").mkdir(parents=True)
    for sub in ("bench", "clients"):
        (fake / sub).symlink_to(build / sub)
    kiln = fake / "compositor" / "kiln"
    kiln.write_text("#!/bin/sh\necho 'kiln: refusing to start for the smoke test' >&2\nexit 3\n")
    kiln.chmod(0o755)
    out = scratch / "failed"
    r = scenarios(fake, "--quick", "--only", "kiln", "--windows", "1", "--seconds", "1", "--clients", "simple-egl",
                  "--out", str(out))
    check(r.returncode == 0, "a compositor that fails to start does not end the run")
    data = json.loads((out / "results.json").read_text())
    check(all("refusing to start" in x.get("error", "") for x in data["runs"] + data["startup_runs"]),
          "every kiln row failed and carries the log tail")
    check("Failed runs:" in r.stdout, "the table lists the failed runs")


def memory_breakdown(build):
    """bench/memory.py: kiln's resident memory by what holds it, with one shm window (no EGL: lazy)."""
    r = subprocess.run([sys.executable, str(SCENARIOS.parent / "memory.py"), "--build", str(build), "--only", "kiln",
                        "--windows", "1", "--clients", "simple-egl", "--settle", "0.5"],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"memory.py measures kiln (stderr tail: {r.stderr[-400:]!r})")
    rows = {line.split("|")[1].strip(): float(line.split("|")[2]) for line in r.stdout.splitlines()
            if line.startswith("| ") and not line.startswith("| what")}
    total = rows.get("**total resident now**", 0)
    check(total > 1 and rows.get("malloc heap ([heap])", 0) > 0, f"a total and a heap were read ({total} MiB)")
    check(rows.get("libLLVM (llvmpipe's JIT compiler)", -1) == 0, "an shm-only kiln has no LLVM resident")
    r = subprocess.run([sys.executable, str(SCENARIOS.parent / "memory.py"), "--windows", "0"], capture_output=True,
                       text=True, timeout=30)
    check(r.returncode == 2 and "usage:" in r.stderr, "memory.py --windows 0 exits 2 with the usage")


def gpu_table(build, scratch):
    """bench/gpu.sh, once per row: the cold rows link every program, kiln's warm rows link none, and a start after
    kiln-cache clear is cold again."""
    out = scratch / "gpu.md"
    r = subprocess.run(["bash", str(SCENARIOS.parent / "gpu.sh"), "--runs", "1", "--out", str(out)],
                       env=dict(os.environ, KILN_BUILD_DIR=str(build)), capture_output=True, text=True, timeout=180)
    check(r.returncode == 0, f"gpu.sh runs on llvmpipe (stderr tail: {r.stderr[-400:]!r})")
    text = out.read_text()
    check(text == r.stdout, "the table written to --out is the one printed")
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in text.splitlines() if line.startswith("| ") and not line.startswith("| case")}
    cold, kiln_only = rows.get("cold (no kiln cache, the driver's disk cache off)"), rows.get(
        "warm, **kiln's cache only** (the driver's off)")
    # However many programs the renderer prepares (12 since the straight and optical alpha programs): the warm row
    # loads from kiln's cache exactly what the cold one linked.
    check(cold and kiln_only and cold[3].isdigit() and int(cold[3]) >= 8 and kiln_only[3] == "0" and
          kiln_only[4] == cold[3],
          f"cold links every program, warm from kiln's cache alone links none ({cold}, {kiln_only})")
    warm = rows.get("warm: --cache-dir alone (kiln's tiers and the driver's cache inside it)")
    cleared = rows.get("after `kiln-cache clear`")
    check(warm and cleared and warm[4] == "0" and cleared[4] == cold[3],
          f"the compositor's warm start links nothing, and after kiln-cache clear all again ({warm}, {cleared})")
    check("NVIDIA-only rows skipped: GL_VENDOR is 'Mesa'" in text, "the NVIDIA-only rows say why they are skipped")
    phases = [line for line in text.splitlines() if line.startswith("egl_init_ms of the warm starts, by phase")]
    check(phases and "eglInitialize" in phases[0] and "context + make current" in phases[0],
          f"egl_init_ms is split into its phases ({phases})")
    r = subprocess.run([sys.executable, str(SCENARIOS.parent / "gpu.py"), "--runs", "0"], capture_output=True,
                       text=True, timeout=30)
    check(r.returncode == 2 and "usage:" in r.stderr, "gpu.py --runs 0 exits 2 with the usage")


def outside_load(build, scratch):
    """bench/outside_load.py: refuses a window too short for two client reports, and measures kiln on 2 windows
    from outside (the clients' own frame reports, every thread of kiln's tree)."""
    script = SCENARIOS.parent / "outside_load.py"
    r = subprocess.run([sys.executable, str(script), "--seconds", "5"], capture_output=True, text=True, timeout=30)
    check(r.returncode == 2 and "usage:" in r.stderr, "outside_load.py --seconds 5 exits 2 with the usage")
    out = scratch / "outside.json"
    r = subprocess.run([sys.executable, str(script), "--build", str(build), "--only", "kiln", "--reps", "1",
                        "--windows", "2", "--seconds", "10", "--out", str(out)], capture_output=True, text=True,
                       timeout=180)
    check(r.returncode == 0, f"outside_load.py measures kiln (stderr tail: {r.stderr[-400:]!r})")
    run = json.loads(out.read_text())["runs"][0]
    check("error" not in run and run["client_fps_per_window"] > 5 and run["cpu_ms_per_client_frame"] > 0,
          f"the clients' own frame reports and kiln's CPU were read ({run})")
    check("| kiln |" in r.stdout, "the markdown table has the kiln row")


def fractional_pixels(build, scratch):
    """bench/fractional_pixels.py: Chromium at scale 1.5 draws fewer pixels per frame with fractional-scale than
    without (where chromium is installed; the numbers themselves are the benchmark's to report)."""
    script = SCENARIOS.parent / "fractional_pixels.py"
    r = subprocess.run([sys.executable, str(script), "--scale", "0"], capture_output=True, text=True, timeout=30)
    check(r.returncode == 2 and "usage:" in r.stderr, "fractional_pixels.py --scale 0 exits 2 with the usage")
    if shutil.which("chromium") is None:
        print("fractional_pixels: chromium not installed, not run")
        return
    out = scratch / "fractional.json"
    r = subprocess.run([sys.executable, str(script), "--build", str(build), "--seconds", "1", "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, f"fractional_pixels.py runs (stderr tail: {r.stderr[-400:]!r})")
    data = json.loads(out.read_text())
    frac, whole = data["runs"]
    check(frac["bound_fractional_scale"] and not whole["bound_fractional_scale"] and frac["frames"] > 0 and
          whole["frames"] > 0, f"one run with the protocol and one without, both drawing ({frac}, {whole})")
    print(r.stdout)


def colour_cost(build, scratch):
    """bench/colour_cost.py: refuses bad arguments, and measures 2 windows undescribed and with one described as
    Display P3 (which kiln draws through a colour program on GL: no frame on the CPU while it is shown)."""
    script = SCENARIOS.parent / "colour_cost.py"
    for args in (["--only", "p5"], ["--reps", "0"], ["--windows", "0"]):
        r = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=30)
        check(r.returncode == 2 and "usage:" in r.stderr, f"colour_cost.py {' '.join(args)} exits 2 with the usage")
    out = scratch / "colour"
    r = subprocess.run([sys.executable, str(script), "--build", str(build), "--reps", "1", "--seconds", "2",
                        "--windows", "2", "--only", "undescribed,p3 x1", "--out", str(out)], capture_output=True,
                       text=True, timeout=240)
    check(r.returncode == 0, f"colour_cost.py runs (stderr tail: {r.stderr[-400:]!r})")
    runs = {row["scenario"]: row for row in json.loads((out / "results.json").read_text())["runs"]}
    check(all("error" not in row and row["client_frames"] > 0 and row["cpu_ms_per_client_frame"] > 0
              for row in runs.values()), f"both scenarios drew and were measured ({runs})")
    check(runs["p3 x1"]["kiln_frames_composed_on_cpu"] < runs["p3 x1"]["kiln_frames_rendered"],
          "the Display P3 window was drawn on GL (frames not composed on the CPU)")
    check("| p3 x1 |" in r.stdout and "ratio to undescribed" in r.stdout, "the markdown table has the rows")


def main():
    need("weston-simple-egl")
    need("wayland-info")
    build = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "build").resolve()
    scratch = Path(tempfile.mkdtemp(prefix="kiln-bench-smoke-"))
    try:
        bad_arguments(build)
        one_quick_kiln_run(build, scratch / "quick")
        failing_compositor(build, scratch)
        memory_breakdown(build)
        gpu_table(build, scratch)
        outside_load(build, scratch)
        fractional_pixels(build, scratch)
        colour_cost(build, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    run_test(main)
