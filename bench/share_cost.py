#!/usr/bin/env python3
"""CPU cost of sharing a 1920x1080 60 Hz headless kiln through its portal while a full-screen client animates.

The stack of tests/portal (a private session bus, PipeWire, WirePlumber, xdg-desktop-portal, kiln-portal) with
kiln-demo-shm animating a 1920x1080 window; an application's ScreenCast session (monitor, cursor hidden) is read by
kiln-portal-hostile-consumer in stream mode (a plain libpipewire consumer: takes each buffer and gives it back).
For each run, over --seconds: CPU time (utime + stime, every thread) of kiln itself, of kiln-portal, of the pipewire
daemon and of the consumer, as % of one core, and the buffers the consumer received per second; then the same
without a share (kiln and the client alone) as the baseline. Prints a markdown table of medians.

sway 1.7 + xdg-desktop-portal-wlr 0.7.0 side by side is not measured here: xdg-desktop-portal-wlr is not installed
on this machine and its Debian source is not available offline, so its dma-buf check cannot be relaxed and built.
"""
import argparse
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
from screencast import ScreenCastClient, Stack, require_stack, xdp_command  # noqa: E402

SIZE = (1920, 1080)


def named_below(pid, name):
    for p in descendants(pid):
        try:
            if Path(f"/proc/{p}/exe").resolve().name == name:
                return p
        except OSError:
            pass
    return None


def one_run(portal_binary, consumer_binary, seconds, share):
    with Stack() as stack:
        portals_dir = Path(stack.dir) / "portals"
        portals_dir.mkdir()
        (portals_dir / "kiln.portal").write_text((ROOT / "portal" / "kiln.portal").read_text())
        kiln_env = {k: v for k, v in stack.env.items() if k.startswith(("DBUS_", "PIPEWIRE_"))}
        with Kiln("--restrict", "image-copy-capture", "-s", f"{portal_binary} --replace", "-s",
                  xdp_command(portals_dir), size=f"{SIZE[0]}x{SIZE[1]}", env=kiln_env, runtime_dir=stack.dir,
                  socket="wayland-share-bench", stats=False) as kiln:
            demo = kiln.spawn([client_binary("kiln-demo-shm"), "--size", f"{SIZE[0]}x{SIZE[1]}", "--color",
                               "336699"])
            time.sleep(1.5)
            if demo.poll() is not None:
                raise RuntimeError(f"kiln-demo-shm exited: {demo.stdout.read()[-300:]}")
            pipewire = next(p.pid for name, p in stack.procs if name == "pipewire")
            portal = named_below(kiln.proc.pid, "kiln-portal")
            consumer, lines = None, []
            if share:
                client = ScreenCastClient(stack.env["DBUS_SESSION_BUS_ADDRESS"])
                client.wait_for_portal()
                response, session, streams = client.share()
                if response != 0 or not streams:
                    raise RuntimeError(f"Start answered {response}")
                fd = client.remote(session)
                consumer = subprocess.Popen([str(consumer_binary), str(fd), str(streams[0][0]), str(seconds + 30),
                                             "stream"], pass_fds=(fd,), env=stack.env, stdout=subprocess.PIPE,
                                            stderr=subprocess.STDOUT, text=True)
                os.close(fd)
                threading.Thread(target=lambda: lines.extend(consumer.stdout), daemon=True).start()
                deadline = time.monotonic() + 20
                while not any(line.startswith("frames ") for line in lines):
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"the consumer got no frame: {''.join(lines)[-300:]}")
                    time.sleep(0.1)
            time.sleep(1)  # past start-up
            pids = {"kiln": kiln.proc.pid, "kiln-portal": portal, "pipewire": pipewire,
                    "consumer": consumer.pid if consumer else None}
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    os.environ.setdefault("KILN_BUILD_DIR", str(ROOT / "build"))
    portal_binary = require_stack()
    consumer_binary = build_dir() / "tests" / "portal" / "kiln-portal-hostile-consumer"
    results = {"shared": [], "not shared": []}
    for _ in range(args.runs):
        for label, share in (("not shared", False), ("shared", True)):
            results[label].append(one_run(portal_binary, consumer_binary, args.seconds, share))
    print(f"{SIZE[0]}x{SIZE[1]} at 60 Hz, kiln-demo-shm animating full screen; medians of {args.runs} runs of "
          f"{args.seconds:g} s; % of one core\n")
    print("| | kiln | kiln-portal | pipewire | consumer | kiln + portal + pipewire | buffers/s |")
    print("|---|---|---|---|---|---|---|")
    for label, runs in results.items():
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        total = med["kiln"] + med["kiln-portal"] + med["pipewire"]
        print(f"| {label} | {med['kiln']:.1f} | {med['kiln-portal']:.1f} | {med['pipewire']:.1f} | "
              f"{med['consumer']:.1f} | {total:.1f} | {med['fps']:.1f} |")
    print("\nsway 1.7 + xdg-desktop-portal-wlr 0.7.0: not measured (xdg-desktop-portal-wlr is not installed here and "
          "its Debian source is not available offline).")


if __name__ == "__main__":
    main()
