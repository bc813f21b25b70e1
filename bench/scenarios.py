#!/usr/bin/env python3
"""Benchmark scenarios: kiln next to weston 14 (GL and pixman) and sway 1.7, headless 1920x1080 at 60 Hz, one command.

For each compositor, interleaved, repeated: N overlapping windows of weston-simple-egl (and of kiln-demo-dmabuf
--source memfd where the compositor offers linux-dmabuf), measuring compositor CPU per client frame (its whole process
tree from /proc, clients excluded), client frames per second, the output's achieved refresh, the probe window's
commit-to-present latency, and the compositor's peak RSS; start-up (exec until wayland-info is answered; kiln with a
cold and a warm program cache); kiln's shader readiness. Writes JSON, PNG plots (gnuplot) and a markdown table.
"""
import argparse
import json
import os
import platform
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lib import compositors, plots, report, workload  # noqa: E402

# Start-ups take a fraction of a second and vary by tens of ms on a shared machine: several per repetition.
FULL = {"reps": 3, "windows": [1, 4, 16, 32], "seconds": 10.0, "startups": 5}
QUICK = {"reps": 1, "windows": [1, 16], "seconds": 5.0, "startups": 1}
CLIENTS = ["simple-egl", "dmabuf-memfd"]


def log(text):
    print(text, file=sys.stderr, flush=True)


def parse_args(argv):
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(prog="bench/scenarios.py", description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true",
                   help=f"CI-size run: {QUICK['reps']} repetition, N in {QUICK['windows']}, {QUICK['seconds']:.0f} s "
                        f"per run (full: {FULL['reps']} repetitions, N in {FULL['windows']}, {FULL['seconds']:.0f} s)")
    p.add_argument("--only", action="append", metavar="NAME[,NAME]",
                   help="compositors to run: kiln, weston-gl, weston-pixman, sway, sway-tiled (sway placing windows "
                        "itself; default: all installed but sway-tiled)")
    p.add_argument("--windows", metavar="N[,N]", help="window counts, overriding the mode's")
    p.add_argument("--seconds", type=float, help="measuring time per run, overriding the mode's")
    p.add_argument("--reps", type=int, help="repetitions, overriding the mode's")
    p.add_argument("--startups", type=int, help=f"start-ups of each compositor per repetition, interleaved (full: "
                                                f"{FULL['startups']}, quick: {QUICK['startups']})")
    p.add_argument("--clients", metavar="KIND[,KIND]", default=",".join(CLIENTS),
                   help=f"client kinds: {', '.join(CLIENTS)} (default: both)")
    p.add_argument("--out", help="result directory (default: bench/results/<UTC time>)")
    p.add_argument("--build", default=str(here.parent / "build"), help="kiln build directory (default: ./build)")
    args = p.parse_args(argv)
    mode = QUICK if args.quick else FULL
    args.reps = args.reps if args.reps is not None else mode["reps"]
    args.seconds = args.seconds if args.seconds is not None else mode["seconds"]
    args.startups = args.startups if args.startups is not None else mode["startups"]
    try:
        args.windows = [int(n) for n in args.windows.split(",")] if args.windows else mode["windows"]
    except ValueError:
        p.error("--windows takes counts such as 1,4,16")
    if any(n < 1 or n > 64 for n in args.windows):
        p.error("--windows: each count must be 1..64")
    if args.reps < 1 or args.seconds <= 0 or args.startups < 1:
        p.error("--reps and --startups must be >= 1 and --seconds > 0")
    names = list(compositors.specs("kiln"))
    args.only = ([n for group in args.only for n in group.split(",") if n] if args.only
                 else [n for n in names if n not in compositors.OPT_IN])
    for n in args.only:
        if n not in names:
            p.error(f"--only: unknown compositor {n!r} (known: {', '.join(names)})")
    args.clients = [c for c in args.clients.split(",") if c]
    for c in args.clients:
        if c not in CLIENTS:
            p.error(f"--clients: unknown client kind {c!r} (known: {', '.join(CLIENTS)})")
    here_results = here / "results" / time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    args.out = Path(args.out) if args.out else here_results
    args.build = Path(args.build).resolve()
    return args


def startup_runs(spec, kiln_cache_parent, peer_cache):
    """Start-up rows for one compositor: kiln twice (cold, then warm program cache), a peer once (Mesa cache warm)."""
    if spec.name != "kiln":
        return [one_startup(spec.name, spec, [], peer_cache)]
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=kiln_cache_parent))
    rows = [one_startup("kiln (cold cache)", spec, ["--cache-dir", str(cache)]),
            one_startup("kiln (warm cache)", spec, ["--cache-dir", str(cache)])]
    shutil.rmtree(cache, ignore_errors=True)
    return rows


def one_startup(label, spec, extra, peer_cache=None):
    with compositors.Running(spec, extra, cache_home=peer_cache) as running:
        if running.start():
            return {"compositor": label, "ready_ms": running.ready_ms}
        return {"compositor": label, "error": f"{running.error}\n{running.log_tail()}"}


READINESS_PARTS = {"": "programs_prepare_ms", "_fetch": "programs_fetch_ms", "_first_draw": "programs_first_draw_ms"}


def shader_readiness(build):
    """kiln's cold and warm programs_prepare_ms through bench/program_cache.py (Mesa's shader cache off), with its
    two parts: fetching the programs (kiln's work) and their warming draws (the driver's first-draw JIT)."""
    import program_cache
    try:
        rows = program_cache.measure(build, 1, True)
        return {kind + suffix: rows[kind][0]["startup"][key]
                for kind in ("cold", "warm") for suffix, key in READINESS_PARTS.items()}
    except (SystemExit, Exception) as e:  # it exits on a failed kiln; a failed row, not the end of the run
        return {"error": str(e)}


def window_run(spec, client, n, args, kiln_cache, peer_cache, dmabuf_known):
    """One measured run of n windows; None when skipped (the compositor offers no linux-dmabuf)."""
    extra = []
    stats = None
    if spec.name == "kiln":
        stats_dir = Path(tempfile.mkdtemp(prefix="kiln-bench-stats-"))
        stats = stats_dir / "stats.json"
        extra = ["--cache-dir", str(kiln_cache), "--stats", str(stats)]
    row = {"compositor": spec.name, "client": client, "windows": n}
    try:
        with compositors.Running(spec, extra, cache_home=peer_cache) as running:
            if not running.start():
                row["error"] = f"start-up failed: {running.error}\n{running.log_tail()}"
                return row
            if client == "dmabuf-memfd":
                dmabuf_known[spec.name] = running.offers("zwp_linux_dmabuf_v1")
                if not dmabuf_known[spec.name]:
                    return None
            started = time.monotonic() - running.ready_ms / 1000
            result = workload.measure(running, args.build, client, n, args.seconds)
            row.update(result)
            if "error" in row:
                row["error"] += "\n" + running.log_tail()
            status = running.stop()
            stopped = time.monotonic()
            if stats:
                # kiln's own count of rendered output frames, over the time since its first frame (an average
                # that includes the seconds while the windows were starting); on a failed row, a clue.
                try:
                    data = json.loads(stats.read_text())
                    first = started + data["startup"]["first_frame_ms"] / 1000
                    row["kiln_frames_rendered"] = data["frames"]["rendered"]
                    if "error" not in row:
                        row["kiln_stats_fps"] = data["frames"]["rendered"] / (stopped - first)
                    else:
                        row["error"] += f"\nkiln --stats: frames.rendered {data['frames']['rendered']}"
                except (OSError, KeyError, ValueError, ZeroDivisionError) as e:
                    row["kiln_stats_error"] = f"no stats ({e}); exit status {status}"
            return row
    finally:
        if stats:
            shutil.rmtree(stats.parent, ignore_errors=True)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    needed = [args.build / "compositor" / "kiln", args.build / "bench" / "libkiln-bench-frame-counter.so",
              args.build / "bench" / "kiln-bench-latency-probe", args.build / "clients" / "kiln-demo-dmabuf"]
    for path in needed:
        if not path.exists():
            sys.exit(f"bench: {path} is not built (meson compile -C {args.build})")
    compositors.make_reachable(args.build)
    all_specs = compositors.specs(str(args.build / "compositor" / "kiln"))
    specs = []
    skipped = []
    for name in args.only:
        spec = all_specs[name]
        missing = [p for p in [spec.argv[0]] + (["setpriv"] if spec.user and os.geteuid() == 0 else [])
                   + (["swaymsg"] if spec.window_mover == "sway" else []) if shutil.which(p) is None
                   and not os.access(p, os.X_OK)]
        if missing:
            skipped.append(f"{name}: {', '.join(missing)} not installed")
        else:
            specs.append(spec)
    if shutil.which("weston-simple-egl") is None and "simple-egl" in args.clients:
        skipped.append("simple-egl windows: weston-simple-egl is not installed")
        args.clients.remove("simple-egl")
    if shutil.which("wayland-info") is None:
        sys.exit("bench: wayland-info is not installed (Debian: wayland-utils)")
    for line in skipped:
        log(f"bench: skipping {line}")

    args.out.mkdir(parents=True, exist_ok=True)
    # Ends the run through the finally blocks below, so a killed runner leaves no compositor or client behind.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    scratch, peer_cache = compositors.scratch_with_peer_cache("kiln-bench-")
    kiln_cache = scratch / "kiln-cache"  # kiln's program cache, warm for every run after the warm-up start
    runs, startups, readiness = [], [], []
    dmabuf_known = {}
    load_before = os.getloadavg()
    try:
        for spec in specs:
            # Unrecorded: fills Mesa's shader cache (and kiln's program cache), as on any machine used before.
            log(f"bench: warm-up start of {spec.name}")
            one_startup(spec.name, spec, ["--cache-dir", str(kiln_cache)] if spec.name == "kiln" else [], peer_cache)
        for rep in range(args.reps):
            for k in range(args.startups):
                for spec in specs:
                    log(f"bench: rep {rep + 1}/{args.reps} start-up {k + 1}/{args.startups} {spec.name}")
                    startups += startup_runs(spec, scratch, peer_cache)
            if any(s.name == "kiln" for s in specs):
                log(f"bench: rep {rep + 1}/{args.reps} kiln shader readiness")
                readiness.append(shader_readiness(args.build))
            for n in args.windows:
                for client in args.clients:
                    for spec in specs:
                        if client == "dmabuf-memfd" and dmabuf_known.get(spec.name) is False:
                            continue
                        log(f"bench: rep {rep + 1}/{args.reps} {client} x{n} on {spec.name}")
                        row = window_run(spec, client, n, args, kiln_cache, peer_cache, dmabuf_known)
                        if row is None:
                            skipped.append(f"{spec.name} dmabuf-memfd windows: it offers no zwp_linux_dmabuf_v1")
                            log(f"bench: skipping {skipped[-1]}")
                            continue
                        if "error" in row:
                            log(f"bench: FAILED {spec.name} {client} x{n}: {row['error']}")
                        runs.append(row)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    summary = {"windows": report.window_rows(runs), "startup": report.startup_rows(startups)}
    ok = [r for r in readiness if "error" not in r]
    if ok:
        summary["shader_readiness"] = {f"{kind}{suffix}_ms": report.summarize([r[kind + suffix] for r in ok])
                                       for kind in ("cold", "warm") for suffix in READINESS_PARTS}
    meta = {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "mode": "quick" if args.quick else "full", "reps": args.reps, "windows": args.windows,
        "startups_per_rep": args.startups,
        "seconds_per_run": args.seconds, "output": "headless 1920x1080 at 60 Hz",
        "machine": {"cpus": os.cpu_count(), "kernel": platform.release(), "loadavg_before": load_before,
                    "loadavg_after": os.getloadavg()},
        "placement": {s.name: s.placement for s in specs},
        "notes": {s.name: s.note for s in specs if s.note},
        "window_size": workload.WINDOW,
        "skipped": skipped,
        "counted": {
            "client_frames": "wl_surface.commit requests sent by the clients (LD_PRELOAD counter); frame-callback "
                             "paced, so one commit per frame",
            "compositor_cpu": "utime+stime of the compositor's process tree (all threads, live children, and "
                              "cutime+cstime of reaped ones) from /proc, over the measuring window; clients excluded",
            "output_hz": "presentations per second of kiln-bench-latency-probe, a 64x64 wl_shm window redrawn on "
                         "every frame callback (kiln_stats_fps: kiln's frames.rendered over its life since first frame)",
            "latency": "probe's commit to wp_presentation presented time (commit to frame callback where there is "
                       "no wp_presentation, labelled)",
            "peak_rss": "sum of VmHWM over the compositor's process tree at the end of the measuring window",
            "startup": "exec until wayland-info (as the compositor's user) is answered; peers after one unrecorded "
                       "start (Mesa's shader cache warm), kiln with an empty and then a filled --cache-dir",
            "shader_readiness": "bench/program_cache.py: startup.programs_prepare_ms, --precompile fast, Mesa cache off; "
                                "split into programs_fetch_ms (compile and link, or load from kiln's cache) and "
                                "programs_first_draw_ms (each program drawn once: the driver's first-draw JIT)",
        },
    }
    result = {"meta": meta, "summary": summary, "runs": runs, "startup_runs": startups,
              "shader_readiness_runs": readiness}
    (args.out / "results.json").write_text(json.dumps(result, indent=1))
    made, why = plots.plot(summary, runs, args.out)
    table = report.markdown(summary)
    (args.out / "summary.md").write_text(table + "\n")
    print(table)
    print()
    for name, how in meta["placement"].items():
        print(f"- placement on {name}: {how}")
    for name, note in meta["notes"].items():
        print(f"- note on {name}: {note}")
    for line in skipped:
        print(f"- skipped {line}")
    for what, how in meta["counted"].items():
        print(f"- {what}: {how}")
    print(f"- load average before / after: {load_before[0]:.2f} / {meta['machine']['loadavg_after'][0]:.2f} "
          f"on {os.cpu_count()} CPUs")
    print(f"- JSON: {args.out / 'results.json'}")
    print(f"- plots: {', '.join(str(p) for p in made)}" if made else f"- plots: none ({why})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
