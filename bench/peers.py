#!/usr/bin/env python3
"""Start-up and per-frame cost of kiln next to weston 14 and sway 1.7, headless, measured in the same run.

For each compositor and run: time from exec until a client can bind the globals (wayland-info succeeds), then one
kiln-demo-shm client drawing N frames: wall time for the frames and compositor CPU time per client frame. Prints a
markdown table with medians and ratios against kiln. Absolute times on a shared machine mean little; ratios do.
sway refuses to run as root, so peers run as `nobody` through setpriv when we are root (bench/lib/compositors.py).
"""
import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lib.compositors import Running, make_reachable, specs  # noqa: E402
from lib.proc_tree import cpu_seconds  # noqa: E402


def run_once(spec, demo, frames, timeout):
    with Running(spec, timeout=timeout) as running:
        if not running.start():
            print(f"{spec.name}: {running.error}\n{running.log_tail()}", file=sys.stderr)
            return None
        cpu_before = cpu_seconds(running.proc.pid)
        t0 = time.monotonic()
        demo_run = subprocess.run(running.user_prefix() + [demo, "--frames", str(frames), "--size", "512x512"],
                                  env=running.client_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  timeout=timeout)
        wall = time.monotonic() - t0
        cpu = cpu_seconds(running.proc.pid) - cpu_before
        if demo_run.returncode != 0:
            print(f"{spec.name}: demo client failed: {demo_run.stderr.decode(errors='replace')[-300:]}", file=sys.stderr)
            return None
        return {"ready_ms": running.ready_ms, "frame_ms": wall * 1000 / frames, "cpu_ms_per_frame": cpu * 1000 / frames}


def main():
    here = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(here / "build"), help="kiln build dir (default: ./build)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--only", nargs="*", help="compositor names to run (default: all found)")
    args = parser.parse_args()

    kiln = str(Path(args.build) / "compositor" / "kiln")
    demo = str(Path(args.build) / "clients" / "kiln-demo-shm")
    for path in (kiln, demo):
        if not Path(path).is_file():
            sys.exit(f"bench: {path} is not built (run scripts/build.sh)")
    make_reachable(args.build)  # the peers run as nobody and must reach the binaries

    results = {}
    for name, spec in specs(kiln, args.size, weston_shell="kiosk").items():
        if args.only and name not in args.only:
            continue
        if not spec.installed():
            print(f"bench: {spec.argv[0]} not installed, skipping {name}", file=sys.stderr)
            continue
        runs = []
        for _ in range(args.runs):
            r = run_once(spec, demo, args.frames, timeout=30)
            if r:
                runs.append(r)
        if runs:
            results[name] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            results[name]["runs"] = len(runs)
        else:
            print(f"bench: {name} produced no result", file=sys.stderr)

    base = results.get("kiln")
    print(f"| compositor | runs | ready (ms) | client frame (ms) | compositor CPU / frame (ms) | ready ÷ kiln | CPU ÷ kiln |")
    print("|---|---|---|---|---|---|---|")
    for name, r in results.items():
        ratio_ready = f"{r['ready_ms'] / base['ready_ms']:.2f}" if base else "-"
        ratio_cpu = f"{r['cpu_ms_per_frame'] / base['cpu_ms_per_frame']:.2f}" if base and base['cpu_ms_per_frame'] else "-"
        print(f"| {name} | {r['runs']} | {r['ready_ms']:.1f} | {r['frame_ms']:.2f} | {r['cpu_ms_per_frame']:.3f} "
              f"| {ratio_ready} | {ratio_cpu} |")


if __name__ == "__main__":
    main()
