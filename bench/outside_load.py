#!/usr/bin/env python3
"""Issue 22's outside load: 16 weston-simple-egl windows on kiln, sway 1.7 and weston 14, measured as an outsider would.

Each compositor as shipped (kiln headless 1920x1080 at 60 Hz; sway 1.7 with WLR_RENDERER=pixman, its own tiling, as
`nobody`; weston 14 --renderer=gl, desktop-shell), and sway with its windows floating, either moved into kiln's
cascade (the same scene as kiln's) or left stacked where sway puts them, and kiln in that stacked scene (kiln-stacked:
its windows Super+dragged there); interleaved repetitions, no latency probe and nothing preloaded
into the clients. Compositor CPU: utime+stime of every thread (/proc/PID/task/*/stat) of the compositor and every
process below it, clients excluded. Client frames: the clients' own count, the "N frames in 5 seconds" lines
weston-simple-egl prints (line-buffered through stdbuf), summed over the reports that fall wholly inside the measuring
window. Prints a markdown table (min / median / max over repetitions and kiln's ratio to each peer) and writes JSON.
"""
import argparse
import dataclasses
import json
import os
import re
import selectors
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lib import compositors, kiln_stack, proc_tree, workload  # noqa: E402

# sway-tiled is sway configured for nothing but its output: it tiles the windows (the load an outsider gets); sway
# floats them and the runner moves them into kiln's cascade (the same scene as kiln's).
DEFAULT = ["kiln", "sway-tiled", "sway", "weston-gl"]
REPORT = re.compile(rb"(\d+) frames in (\d+) seconds")


def log(text):
    print(text, file=sys.stderr, flush=True)


def parse_args(argv):
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(prog="bench/outside_load.py", description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--windows", type=int, default=16, help="weston-simple-egl windows (default 16)")
    p.add_argument("--seconds", type=float, default=20.0,
                   help="measuring window per run; the clients report every 5 s (default 20)")
    p.add_argument("--only", metavar="NAME[,NAME]",
                   help=f"compositors (default {','.join(DEFAULT)}; also sway: floating in kiln's placement, "
                        "sway-stacked: floating where sway puts them, all centred, and kiln-stacked: kiln's windows "
                        "moved there)")
    p.add_argument("--kiln-arg", action="append", default=[], help="extra kiln argument (repeatable)")
    p.add_argument("--out", help="JSON file to write (default: none)")
    p.add_argument("--build", default=str(here.parent / "build"), help="kiln build directory (default: ./build)")
    args = p.parse_args(argv)
    if args.reps < 1 or not 1 <= args.windows <= 64 or args.seconds < 10:
        p.error("--reps >= 1, --windows 1..64, --seconds >= 10 (two client reports)")
    args.only = args.only.split(",") if args.only else DEFAULT
    args.build = Path(args.build).resolve()
    return args


class Clients:
    """n weston-simple-egl processes whose report lines are read and timestamped as they come."""

    def __init__(self, running, n):
        self.sel = selectors.DefaultSelector()
        self.procs = []
        self.reports = []  # (client index, arrival time, frames, seconds)
        self.partial = {}
        for i in range(n):
            proc = subprocess.Popen(running.user_prefix() + ["stdbuf", "-oL", "weston-simple-egl"],
                                    env=running.client_env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    stdin=subprocess.DEVNULL)
            os.set_blocking(proc.stdout.fileno(), False)
            self.sel.register(proc.stdout, selectors.EVENT_READ, i)
            self.procs.append(proc)
            self.partial[i] = b""

    def pump(self, until):
        """Reads report lines until the monotonic time `until`."""
        while (left := until - time.monotonic()) > 0:
            for key, _ in self.sel.select(min(left, 0.2)):
                now = time.monotonic()
                data = key.fileobj.read() or b""
                if not data:
                    self.sel.unregister(key.fileobj)
                    continue
                lines = (self.partial[key.data] + data).split(b"\n")
                self.partial[key.data] = lines.pop()
                for line in lines:
                    m = REPORT.search(line)
                    if m:
                        self.reports.append((key.data, now, int(m.group(1)), int(m.group(2))))

    def fps_between(self, t0, t1):
        """Sum over the clients of each one's frames per second from its reports wholly inside [t0, t1], and the
        number of clients that reported there."""
        total, reporting = 0.0, 0
        for i in range(len(self.procs)):
            mine = [(f, s) for c, t, f, s in self.reports if c == i and t - s >= t0 and t <= t1]
            if mine:
                total += sum(f for f, _ in mine) / sum(s for _, s in mine)
                reporting += 1
        return total, reporting

    def exited(self):
        return [i for i, p in enumerate(self.procs) if p.poll() is not None]

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)  # weston-simple-egl quits cleanly on SIGINT only
        for p in self.procs:
            try:
                p.wait(3)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            p.stdout.close()


def one_run(spec, args, extra, peer_cache):
    row = {"compositor": spec.name}
    with compositors.Running(spec, extra, cache_home=peer_cache) as running:
        if not running.start():
            row["error"] = f"{running.error}\n{running.log_tail()}"
            return row
        clients = Clients(running, args.windows)
        try:
            # Until every client has reported once (all mapped and drawing), then one more report period.
            deadline = time.monotonic() + 60
            while len({c for c, *_ in clients.reports}) < args.windows and time.monotonic() < deadline:
                clients.pump(time.monotonic() + 0.5)
                if clients.exited() or not running.alive():
                    break
            if spec.window_mover == "sway":
                # kiln's cascade, applied through swaymsg: the same scene as kiln's (scenarios.py does the same).
                for i, proc in enumerate(clients.procs):
                    workload.sway_move(running, proc.pid, workload.kiln_position(i, spec.output_size))
            elif spec.window_mover == "kiln-stack":
                # sway-stacked's scene on kiln: every window Super+dragged onto the first one's (centred) spot.
                kiln_stack.stack_windows(running.client_env, args.windows, spec.output_size,
                                         tuple(int(v) for v in workload.WINDOW.split("x")))
            clients.pump(time.monotonic() + 1.0)
            t0, cpu0 = time.monotonic(), proc_tree.tree_task_cpu_seconds(running.proc.pid)
            clients.pump(t0 + args.seconds)
            t1, cpu1 = time.monotonic(), proc_tree.tree_task_cpu_seconds(running.proc.pid)
            rss = proc_tree.tree_peak_rss_kib(running.proc.pid)
            if not running.alive():
                row["error"] = f"compositor exited ({running.proc.returncode})\n{running.log_tail()}"
                return row
            if clients.exited():
                row["error"] = f"clients {clients.exited()} exited during the run\n{running.log_tail()}"
                return row
            fps, reporting = clients.fps_between(t0, t1)
            if reporting < args.windows or fps <= 0:
                row["error"] = f"only {reporting} of {args.windows} clients reported inside the measuring window"
                return row
            cpu_rate = (cpu1 - cpu0) / (t1 - t0)
            row.update({"seconds": t1 - t0, "cpu_percent": 100 * cpu_rate, "client_fps_total": fps,
                        "client_fps_per_window": fps / args.windows, "cpu_ms_per_client_frame": 1000 * cpu_rate / fps,
                        "peak_rss_mib": rss / 1024})
            return row
        finally:
            clients.stop()


def spread(values):
    return {"min": min(values), "median": statistics.median(values), "max": max(values), "n": len(values)}


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    kiln = args.build / "compositor" / "kiln"
    if not kiln.exists():
        sys.exit(f"bench: {kiln} is not built")
    for tool in ("weston-simple-egl", "stdbuf", "wayland-info"):
        if shutil.which(tool) is None:
            sys.exit(f"bench: {tool} is not installed")
    compositors.make_reachable(args.build)
    all_specs = compositors.specs(str(kiln))
    # sway's floating windows left where sway puts them: each centred, all exactly on top of each other (one 250x250
    # square to compose, where kiln's cascade spreads them): what a floating config without moves measures.
    all_specs["sway-stacked"] = dataclasses.replace(
        all_specs["sway"], name="sway-stacked", window_mover=None,
        placement="sway's own for floating windows: every window centred, all on top of each other")
    # kiln with sway-stacked's scene: its windows Super+dragged (virtual keyboard and pointer) onto the centred spot.
    all_specs["kiln-stacked"] = dataclasses.replace(
        all_specs["kiln"], name="kiln-stacked", window_mover="kiln-stack",
        placement="moved by the runner as a user would (Super+drag): every window centred, all on top of each other")
    specs = []
    for name in args.only:
        if name not in all_specs:
            sys.exit(f"bench: unknown compositor {name!r} (known: {', '.join(all_specs)})")
        if all_specs[name].installed():
            specs.append(all_specs[name])
        else:
            log(f"bench: skipping {name}: not installed")
    scratch, peer_cache = compositors.scratch_with_peer_cache("kiln-outside-")
    kiln_extra = ["--cache-dir", str(scratch / "kiln-cache")] + args.kiln_arg
    runs = []
    load_before = os.getloadavg()
    try:
        for spec in specs:
            # Unrecorded: kiln's first start in an empty --cache-dir probes the EGL display for its formats and keeps
            # EGL (llvmpipe, LLVM) loaded; later starts read the stored profile and open EGL only when a client needs
            # it, as on any machine kiln ran on before. The peers' Mesa shader cache fills likewise.
            log(f"bench: warm-up start of {spec.name}")
            with compositors.Running(spec, kiln_extra if spec.name.startswith("kiln") else [], cache_home=peer_cache) as r:
                r.start()
        for rep in range(args.reps):
            for spec in specs:
                log(f"bench: rep {rep + 1}/{args.reps} {args.windows} x weston-simple-egl on {spec.name}")
                spec_extra = kiln_extra if spec.name.startswith("kiln") else []
                row = one_run(spec, args, spec_extra, peer_cache)
                row["rep"] = rep
                if "error" in row:
                    log(f"bench: FAILED {spec.name}: {row['error']}")
                runs.append(row)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    ok = {s.name: [r for r in runs if r["compositor"] == s.name and "error" not in r] for s in specs}
    print(f"| compositor | CPU ms / client frame (min / median / max) | client fps / window | CPU % | peak RSS MiB "
          f"| runs |")
    print("|---|---|---|---|---|---|")
    summary = {}
    for name, rows in ok.items():
        if not rows:
            print(f"| {name} | - | - | - | - | 0 |")
            continue
        s = {k: spread([r[k] for r in rows]) for k in ("cpu_ms_per_client_frame", "client_fps_per_window",
                                                       "cpu_percent", "peak_rss_mib")}
        summary[name] = s
        c = s["cpu_ms_per_client_frame"]
        print(f"| {name} | {c['min']:.3f} / {c['median']:.3f} / {c['max']:.3f} "
              f"| {s['client_fps_per_window']['median']:.1f} | {s['cpu_percent']['median']:.1f} "
              f"| {s['peak_rss_mib']['median']:.1f} | {len(rows)} |")
    ratios = {}
    # Per repetition, each kiln row against the peer's run of the same repetition (interleaved, so the same machine
    # load); kiln-stacked only against sway-stacked, its scene.
    for mine in [n for n in ok if n.startswith("kiln") and ok[n]]:
        for name in ok:
            if name.startswith("kiln") or (mine == "kiln-stacked") != (name == "sway-stacked"):
                continue
            pairs = [(k["cpu_ms_per_client_frame"], p["cpu_ms_per_client_frame"]) for k in ok[mine]
                     for p in ok[name] if p["rep"] == k["rep"]]
            if pairs:
                key = name if mine == "kiln" else f"{mine}/{name}"
                ratios[key] = spread([a / b for a, b in pairs])
                r = ratios[key]
                print(f"\n{mine} ÷ {name} per repetition: min {r['min']:.2f}, median {r['median']:.2f}, "
                      f"max {r['max']:.2f} ({r['n']} repetitions)", end="")
    print()
    print(f"load average before / after: {load_before[0]:.2f} / {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    if args.out:
        Path(args.out).write_text(json.dumps({"date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                              "args": {k: str(v) for k, v in vars(args).items()},
                                              "runs": runs, "summary": summary, "kiln_ratio": ratios}, indent=1))
    return 0 if all(ok.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
