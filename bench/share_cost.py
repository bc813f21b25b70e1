#!/usr/bin/env python3
"""CPU cost of sharing a 1920x1080 60 Hz headless screen while a full-screen client animates: kiln + kiln-portal
against sway 1.7 + xdg-desktop-portal-wlr 0.7.0 (its dma-buf check relaxed by bench/xdpw/), in one run.

Each side on its own stack of tests/portal (a private session bus, PipeWire, WirePlumber, xdg-desktop-portal routed
to the side's backend by XDG_CURRENT_DESKTOP) with kiln-demo-shm animating a 1920x1080 window (bench/lib/
share_sides.py); an application's ScreenCast session (monitor, cursor hidden) is read by
kiln-portal-hostile-consumer in stream mode (a plain libpipewire consumer: takes each buffer and gives it back).
For each run, over --seconds: CPU time (utime + stime, every thread) of the compositor, of its portal backend, of the
pipewire daemon and of the consumer, as % of one core, and the buffers the consumer received per second; then the
same without a share (compositor and client alone) as the baseline. Sides and states interleave within each
repetition. Prints a markdown table of medians and kiln/sway ratios. Buffers are wl_shm on both sides (kiln-portal
offers no dma-buf yet; sway's pixman renderer has none). Where the xdg-desktop-portal-wlr source or libinih-dev is
missing the sway rows are skipped with the reason; a side that delivers no frame makes the run exit 1.
"""
import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "portal"))
sys.path.insert(0, str(ROOT / "tests" / "lib"))
sys.path.insert(0, str(ROOT / "bench"))
from kiln_harness import Kiln, build_dir, client_binary  # noqa: E402
from lib.proc_tree import cpu_seconds, descendants  # noqa: E402
from lib.share_sides import XDPW_DEFAULT_SOURCE, KilnSide, SwaySide, xdpw_binary  # noqa: E402
from screencast import ScreenCastClient, Stack, require_stack  # noqa: E402

SIZE = (1920, 1080)
PARTS = ("compositor", "portal", "pipewire", "consumer")


def measure(side, stack, consumer_binary, seconds, share):
    """One measurement on an entered side: % of a core per part over `seconds`, and buffers/s at the consumer."""
    pipewire = next(p.pid for name, p in stack.procs if name == "pipewire")
    consumer, lines = None, []
    if share:
        client = ScreenCastClient(stack.env["DBUS_SESSION_BUS_ADDRESS"])
        client.wait_for_portal()
        with contextlib.redirect_stdout(sys.stderr):  # share()'s "ok:" lines: stdout is the table
            response, session, streams = client.share()
        if response != 0 or not streams:
            raise RuntimeError(f"Start answered {response}")
        fd = client.remote(session)
        consumer = subprocess.Popen([str(consumer_binary), str(fd), str(streams[0][0]), str(seconds + 30), "stream"],
                                    pass_fds=(fd,), env=stack.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True)
        os.close(fd)
        threading.Thread(target=lambda: lines.extend(consumer.stdout), daemon=True).start()
        deadline = time.monotonic() + 20
        while not any(line.startswith("frames ") for line in lines):
            if time.monotonic() > deadline:
                consumer.kill()
                raise RuntimeError(f"the consumer got no frame in 20 s: {''.join(lines)[-300:]}")
            time.sleep(0.1)
        agreed = next((line.split()[1:] for line in lines if line.startswith("format ")), None)
        if agreed != [str(SIZE[0]), str(SIZE[1])]:
            consumer.kill()
            raise RuntimeError(f"the stream is not {SIZE[0]}x{SIZE[1]}: format {agreed}")
    time.sleep(1)  # past start-up
    pids = dict(side.pids, pipewire=pipewire, consumer=consumer.pid if consumer else None)
    before = {k: cpu_seconds(p) if p else 0.0 for k, p in pids.items()}
    frames_before = sum(1 for line in lines if line.startswith("frames "))
    t0 = time.monotonic()
    time.sleep(seconds)
    wall = time.monotonic() - t0
    after = {k: cpu_seconds(p) if p else 0.0 for k, p in pids.items()}
    frames = sum(1 for line in lines if line.startswith("frames ")) - frames_before
    if consumer:
        consumer.kill()
        consumer.wait()
    result = {k: 100 * (after[k] - before[k]) / wall for k in pids}
    result["fps"] = frames / wall
    return result


def one_run(make_side, consumer_binary, seconds, share):
    """A fresh stack and side for one measurement; None (after printing the side's logs) when it fails."""
    with Stack() as stack:
        side = make_side(stack)
        try:
            with side:
                return measure(side, stack, consumer_binary, seconds, share)
        except (RuntimeError, AssertionError) as e:
            print(f"{side.name}, {'shared' if share else 'not shared'}: {e}\n{side.logs()}", file=sys.stderr)
            return None


def median(runs, key):
    return statistics.median(r[key] for r in runs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--xdpw-source", default=os.environ.get("KILN_XDPW_SOURCE", XDPW_DEFAULT_SOURCE),
                        help="xdg-desktop-portal-wlr: a git repository with tag v0.7.0 or an unpacked 0.7.0 tree")
    parser.add_argument("--xdpw", help="an xdg-desktop-portal-wlr binary to use instead of building one")
    args = parser.parse_args()
    os.environ.setdefault("KILN_BUILD_DIR", str(ROOT / "build"))
    portal_binary = require_stack()
    consumer_binary = build_dir() / "tests" / "portal" / "kiln-portal-hostile-consumer"
    demo = str(client_binary("kiln-demo-shm"))
    sides = {"kiln": lambda stack: KilnSide(stack, SIZE, demo, portal_binary, descendants, Kiln)}
    skipped = None
    if args.xdpw:
        xdpw = Path(args.xdpw).resolve()
    else:
        xdpw, skipped = xdpw_binary(args.xdpw_source, build_dir() / "bench-xdpw")
    if skipped is None and not any(os.access(Path(d) / "sway", os.X_OK) for d in os.environ["PATH"].split(":")):
        skipped = "sway is not installed"
    if skipped:
        print(f"sway 1.7 + xdg-desktop-portal-wlr: skipped: {skipped}", file=sys.stderr)
    else:
        sides["sway"] = lambda stack: SwaySide(stack, SIZE, demo, xdpw)

    results = {(name, label): [] for name in sides for label in ("shared", "not shared")}
    failed = {key: 0 for key in results}
    for _ in range(args.runs):
        for label, share in (("not shared", False), ("shared", True)):
            for name, make_side in sides.items():
                result = one_run(make_side, consumer_binary, args.seconds, share)
                if result is None or (share and result["fps"] == 0):
                    failed[(name, label)] += 1
                else:
                    results[(name, label)].append(result)

    print(f"{SIZE[0]}x{SIZE[1]} at 60 Hz, kiln-demo-shm animating full screen, wl_shm buffers; medians of "
          f"{args.runs} runs of {args.seconds:g} s; CPU in % of one core\n")
    print("| side | | compositor | portal backend | pipewire | consumer | compositor + backend + pipewire | "
          "frames/s at the consumer | CPU ms per delivered frame | runs (failed) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    totals = {}
    for (name, label), runs in results.items():
        if not runs:
            backend = "kiln-portal" if name == "kiln" else "xdpw"
            print(f"| {name} + {backend} | {label} | | | | | | | | 0 ({failed[(name, label)]}) |")
            continue
        med = {k: median(runs, k) for k in PARTS + ("fps",)}
        total = statistics.median(r["compositor"] + r["portal"] + r["pipewire"] for r in runs)
        per_frame = (statistics.median(10 * (r["compositor"] + r["portal"] + r["pipewire"]) / r["fps"] for r in runs)
                     if label == "shared" else None)
        totals[(name, label)] = (total, per_frame)
        backend = "kiln-portal" if name == "kiln" else "xdpw"
        print(f"| {name} + {backend} | {label} | {med['compositor']:.1f} | {med['portal']:.1f} | "
              f"{med['pipewire']:.1f} | {med['consumer']:.1f} | {total:.1f} | {med['fps']:.1f} | "
              f"{'' if per_frame is None else f'{per_frame:.2f}'} | {len(runs)} ({failed[(name, label)]}) |")
    if ("kiln", "shared") in totals and ("sway", "shared") in totals:
        k, s = totals[("kiln", "shared")], totals[("sway", "shared")]
        kn, sn = totals.get(("kiln", "not shared"), (0, None))[0], totals.get(("sway", "not shared"), (0, None))[0]
        print(f"\nkiln / sway, shared: CPU per second {k[0] / s[0]:.2f}, CPU per delivered frame {k[1] / s[1]:.2f}; "
              f"what sharing adds (shared − not shared) {(k[0] - kn) / (s[0] - sn):.2f}")
    if skipped:
        print(f"\nsway 1.7 + xdg-desktop-portal-wlr 0.7.0: skipped: {skipped}")
    zero = [f"{name} {label}" for (name, label), n in failed.items() if n]
    if zero:
        print(f"\nFAILED (no frame delivered, or the side did not come up): {', '.join(zero)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
