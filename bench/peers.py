#!/usr/bin/env python3
"""Start-up and per-frame cost of kiln next to weston 14 and sway 1.7, headless, measured in the same run.

For each compositor and run: time from exec until a client can bind the globals (wayland-info succeeds), then one
kiln-demo-shm client drawing N frames: wall time for the frames and compositor CPU time per client frame. Prints a
markdown table with medians and ratios against kiln. Absolute times on a shared machine mean little; ratios do.
sway refuses to run as root, so peers run as `nobody` through setpriv when we are root.
"""
import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """User + system CPU time of a process from /proc (children excluded)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return float("nan")


def as_user(user):
    if os.geteuid() != 0 or user is None:
        return []
    return ["setpriv", f"--reuid={user}", f"--regid={user if user != 'nobody' else 'nogroup'}", "--clear-groups"]


def compositors(kiln, size):
    w, h = size.split("x")
    return {
        "kiln": (None, [kiln, "--backend", "headless", "--headless-size", size, "--socket", "{socket}"], {}),
        "weston-gl": ("nobody", ["weston", "--backend=headless", "--renderer=gl", f"--width={w}", f"--height={h}",
                                 "--socket={socket}", "--idle-time=0", "--shell=kiosk"], {}),
        "weston-pixman": ("nobody", ["weston", "--backend=headless", "--renderer=pixman", f"--width={w}",
                                     f"--height={h}", "--socket={socket}", "--idle-time=0", "--shell=kiosk"], {}),
        "sway": ("nobody", ["sway", "-c", "/dev/null"],
                 {"WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_HEADLESS_OUTPUTS": "1"}),
    }


def run_once(name, user, argv, extra_env, demo, frames, timeout):
    runtime = tempfile.mkdtemp(prefix="kiln-bench-")
    if user and os.geteuid() == 0:
        shutil.chown(runtime, user)
    os.chmod(runtime, 0o700)
    socket = "wayland-bench"
    env = dict(os.environ, XDG_RUNTIME_DIR=runtime, **extra_env)
    env.pop("WAYLAND_DISPLAY", None)
    env.pop("DISPLAY", None)
    if name == "sway":
        env["WAYLAND_DISPLAY"] = ""  # sway picks wayland-N itself
    argv = [a.replace("{socket}", socket) for a in argv]
    start = time.monotonic()
    proc = subprocess.Popen(as_user(user) + argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client_env = dict(env)
    client_env.pop("WAYLAND_DISPLAY", None)
    ready = None
    try:
        while time.monotonic() - start < timeout:
            sockets = [p.name for p in Path(runtime).glob("wayland-*") if not p.name.endswith(".lock")]
            if sockets:
                client_env["WAYLAND_DISPLAY"] = sockets[0]
                if subprocess.run(as_user(user) + ["wayland-info"], env=client_env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL).returncode == 0:
                    ready = time.monotonic() - start
                    break
            if proc.poll() is not None:
                break
            time.sleep(0.005)
        if ready is None:
            return None
        cpu_before = cpu_seconds(proc.pid)
        t0 = time.monotonic()
        demo_run = subprocess.run(as_user(user) + [demo, "--frames", str(frames), "--size", "512x512"],
                                  env=client_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
        wall = time.monotonic() - t0
        cpu = cpu_seconds(proc.pid) - cpu_before
        if demo_run.returncode != 0:
            print(f"{name}: demo client failed: {demo_run.stderr.decode(errors='replace')[-300:]}", file=sys.stderr)
            return None
        return {"ready_ms": ready * 1000, "frame_ms": wall * 1000 / frames, "cpu_ms_per_frame": cpu * 1000 / frames}
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(runtime, ignore_errors=True)


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
        if not os.access(path, os.X_OK):
            sys.exit(f"bench: {path} is not built (run scripts/build.sh)")
    if os.geteuid() == 0:  # the peers run as nobody and must reach the binaries
        for p in Path(args.build).parents:
            if p == Path("/"):
                break
            os.chmod(p, os.stat(p).st_mode | 0o011)

    results = {}
    for name, (user, argv, env) in compositors(kiln, args.size).items():
        if args.only and name not in args.only:
            continue
        if shutil.which(argv[0]) is None and not os.access(argv[0], os.X_OK):
            print(f"bench: {argv[0]} not installed, skipping {name}", file=sys.stderr)
            continue
        runs = []
        for _ in range(args.runs):
            r = run_once(name, user, argv, env, demo, args.frames, timeout=30)
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
