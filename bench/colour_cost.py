#!/usr/bin/env python3
"""What colour management costs kiln (issue 33): compositor CPU per client frame with 16 windows, headless 1920x1080
at 60 Hz, for windows without color-management-v1 (today's path), the same 16 windows each described as plain sRGB
(which must take that path: within 5 %), and 1, 4 and 16 of them described as Display P3 (converted by a colour
program, which also moves the frame from kiln's CPU composition to GL where that was in use).

Scenarios are interleaved within each repetition, each on a fresh kiln with one warm --cache-dir (a warm-up start
with every scenario's programs comes first and is not recorded). Client: bench/colour_windows.py (one connection,
each window redrawn on every frame callback). Compositor CPU: utime+stime of kiln's process tree (every thread,
reaped children included) from /proc over the measuring window, clients excluded; client frames: the commits the
client sent in that window. Prints a markdown table (min / median / max over repetitions; ratios of medians to the
undescribed windows) and writes results.json and summary.md. No pass or fail: the numbers are for reading.
"""
import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lib import compositors, proc_tree  # noqa: E402

HERE = Path(__file__).resolve().parent
# name: (windows described, their primaries)
SCENARIOS = {
    "undescribed": (0, None),
    "srgb x16": (16, "srgb"),
    "p3 x1": (1, "display-p3"),
    "p3 x4": (4, "display-p3"),
    "p3 x16": (16, "display-p3"),
}
BASELINE = "undescribed"


def log(text):
    print(text, file=sys.stderr, flush=True)


class Client:
    """bench/colour_windows.py on a running kiln: started, read when told, stopped."""

    def __init__(self, running, windows, described, primaries):
        argv = [sys.executable, str(HERE / "colour_windows.py"), "--windows", str(windows),
                "--described", str(described)] + (["--primaries", primaries] if primaries else [])
        self.proc = subprocess.Popen(argv, env=running.client_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, text=True)

    def line(self):
        text = self.proc.stdout.readline()
        if not text:
            raise RuntimeError(f"the client ended: {self.proc.stderr.read()[-500:]}")
        return text.strip()

    def commits(self):
        self.proc.send_signal(signal.SIGUSR1)
        return int(self.line())

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def run(spec, name, args, cache):
    """One measured run of scenario `name`; a row (with "error" when it failed)."""
    described, primaries = SCENARIOS[name]
    stats = Path(tempfile.mkdtemp(prefix="kiln-colour-stats-")) / "stats.json"
    row = {"scenario": name, "windows": args.windows, "described": described, "primaries": primaries}
    extra = ["--cache-dir", str(cache), "--stats", str(stats)] + (["--composition", args.composition]
                                                                   if args.composition else [])
    try:
        with compositors.Running(spec, extra) as running:
            if not running.start():
                row["error"] = f"start-up failed: {running.error}\n{running.log_tail()}"
                return row
            client = Client(running, args.windows, described, primaries)
            try:
                ready = client.line()
                if ready != "ready":
                    raise RuntimeError(f"the client said {ready!r}")
                time.sleep(args.settle)
                pid = running.proc.pid
                c0, cpu0, t0 = client.commits(), proc_tree.tree_cpu_seconds(pid), time.monotonic()
                time.sleep(args.seconds)
                cpu1, t1, c1 = proc_tree.tree_cpu_seconds(pid), time.monotonic(), client.commits()
            except (RuntimeError, ValueError) as e:
                row["error"] = f"{e}\n{running.log_tail()}"
                return row
            finally:
                client.stop()
            frames = c1 - c0
            row.update({"seconds": t1 - t0, "client_frames": frames, "client_fps": frames / (t1 - t0),
                        "compositor_cpu_s": cpu1 - cpu0,
                        "cpu_ms_per_client_frame": (cpu1 - cpu0) * 1000 / frames if frames else None})
            running.stop()
            try:
                data = json.loads(stats.read_text())
                row["kiln_frames_rendered"] = data["frames"]["rendered"]
                row["kiln_frames_composed_on_cpu"] = data["frames"]["composed_on_cpu"]
                row["kiln_programs_linked"] = data["programs"]["linked_from_source"]
            except (OSError, KeyError, ValueError) as e:
                row["kiln_stats_error"] = str(e)
            return row
    finally:
        shutil.rmtree(stats.parent, ignore_errors=True)


def summarize(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"min": min(values), "median": statistics.median(values), "max": max(values), "n": len(values)}


def markdown(summary):
    base = (summary.get(BASELINE) or {}).get("cpu_ms_per_client_frame")
    lines = ["| scenario | CPU ms / client frame (min / median / max) | ratio to undescribed (medians) | "
             "client fps (median) | kiln frames on CPU |",
             "|---|---|---|---|---|"]
    for name, s in summary.items():
        cpu = s.get("cpu_ms_per_client_frame")
        fps = s.get("client_fps")
        ratio = f"{cpu['median'] / base['median']:.3f}" if cpu and base else "-"
        text = f"{cpu['min']:.3f} / {cpu['median']:.3f} / {cpu['max']:.3f}" if cpu else "-"
        lines.append(f"| {name} | {text} | {ratio} | {fps['median']:.0f} |" if fps else f"| {name} | - | - | - |")
        lines[-1] += f" {s.get('on_cpu', '-')} |"
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(prog="bench/colour_cost.py", description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=5, help="repetitions of every scenario, interleaved (default 5)")
    p.add_argument("--seconds", type=float, default=8.0, help="measuring time per run (default 8)")
    p.add_argument("--settle", type=float, default=1.0, help="wait after every window drew, before measuring")
    p.add_argument("--windows", type=int, default=16)
    p.add_argument("--composition", choices=["auto", "gl"], help="kiln --composition (default: kiln's own, auto)")
    p.add_argument("--only", help="scenarios, comma-separated (default: all)")
    p.add_argument("--out", help="result directory (default: bench/results/colour-cost-<UTC time>)")
    p.add_argument("--build", default=str(HERE.parent / "build"), help="kiln build directory (default: ./build)")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    names = [n for n in args.only.split(",") if n] if args.only else list(SCENARIOS)
    for n in names:
        if n not in SCENARIOS:
            p.error(f"--only: unknown scenario {n!r} (known: {', '.join(SCENARIOS)})")
    if args.reps < 1 or args.seconds <= 0 or not 1 <= args.windows <= 64:
        p.error("--reps >= 1, --seconds > 0, --windows 1..64")
    for n in names:
        if SCENARIOS[n][0] > args.windows:
            SCENARIOS[n] = (args.windows, SCENARIOS[n][1])
    build = Path(args.build).resolve()
    kiln = build / "compositor" / "kiln"
    if not kiln.exists():
        sys.exit(f"bench: {kiln} is not built (meson compile -C {build})")
    if shutil.which("wayland-info") is None:
        sys.exit("bench: wayland-info is not installed (Debian: wayland-utils)")
    out = Path(args.out) if args.out else HERE / "results" / time.strftime("colour-cost-%Y%m%dT%H%M%SZ", time.gmtime())
    out.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    spec = compositors.specs(str(kiln))["kiln"]
    scratch = Path(tempfile.mkdtemp(prefix="kiln-colour-cost-"))
    cache = scratch / "cache"
    runs = []
    load_before = os.getloadavg()
    try:
        for n in names:  # unrecorded: every program each scenario draws with lands in the cache
            log(f"bench: warm-up {n}")
            run(spec, n, argparse.Namespace(**{**vars(args), "seconds": 0.5, "settle": 0.2}), cache)
        for rep in range(args.reps):
            order = names[rep % len(names):] + names[:rep % len(names)]  # a different scenario first each time
            for n in order:
                log(f"bench: rep {rep + 1}/{args.reps} {n}")
                row = run(spec, n, args, cache)
                row["rep"] = rep
                if "error" in row:
                    log(f"bench: FAILED {n}: {row['error']}")
                runs.append(row)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    summary = {}
    for n in names:
        ok = [r for r in runs if r["scenario"] == n and "error" not in r]
        summary[n] = {key: summarize([r.get(key) for r in ok])
                      for key in ("cpu_ms_per_client_frame", "client_fps", "compositor_cpu_s")}
        summary[n]["failed"] = sum(1 for r in runs if r["scenario"] == n and "error" in r)
        on_cpu = [r["kiln_frames_composed_on_cpu"] / r["kiln_frames_rendered"] for r in ok
                  if r.get("kiln_frames_rendered")]
        summary[n]["on_cpu"] = f"{statistics.median(on_cpu):.0%}" if on_cpu else "-"
    base = summary.get(BASELINE, {}).get("cpu_ms_per_client_frame")
    for n in names:
        cpu = summary[n]["cpu_ms_per_client_frame"]
        summary[n]["ratio_to_undescribed"] = cpu["median"] / base["median"] if cpu and base else None
    meta = {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": "bench/colour_cost.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "reps": args.reps, "seconds_per_run": args.seconds, "windows": args.windows, "window_size": "250x250",
        "composition": args.composition or "kiln's default (auto)", "output": "headless 1920x1080 at 60 Hz",
        "machine": {"cpus": os.cpu_count(), "kernel": platform.release(), "loadavg_before": load_before,
                    "loadavg_after": os.getloadavg()},
        "counted": {
            "compositor_cpu": "utime+stime of kiln's process tree (all threads, reaped children) from /proc over the "
                              "measuring window; the client excluded",
            "client_frames": "commits bench/colour_windows.py sent in that window (one per frame callback)",
            "kiln frames on CPU": "frames.composed_on_cpu / frames.rendered from kiln --stats (whole run)",
        },
    }
    (out / "results.json").write_text(json.dumps({"meta": meta, "summary": summary, "runs": runs}, indent=1))
    table = markdown(summary)
    (out / "summary.md").write_text(table + "\n")
    print(table)
    print(f"\n- {meta['command']}; {args.reps} reps x {args.seconds:.0f} s, {os.cpu_count()} CPUs, load average "
          f"before / after {load_before[0]:.2f} / {meta['machine']['loadavg_after'][0]:.2f}")
    print(f"- JSON: {out / 'results.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
