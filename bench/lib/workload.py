"""One measured run: N client windows on a started compositor, then its CPU per client frame, latency and memory.

Client frames are wl_surface.commit requests counted inside each client by libkiln-bench-frame-counter.so
(LD_PRELOAD); with frame-callback pacing (eglSwapInterval 1, kiln-demo-dmabuf's loop) one commit is one frame.
Latency and the output's achieved refresh come from kiln-bench-latency-probe, a 64x64 wl_shm window added on top.
"""
import os
import shutil
import signal
import statistics
import subprocess
import time
from pathlib import Path

from . import proc_tree

WINDOW = "250x250"  # weston-simple-egl's default size; kiln-demo-dmabuf is given the same


CASCADE_STEP = 32  # compositor/shell/placement.hpp


def kiln_spot(output, size, taken):
    """Where kiln puts a new window of `size` on an `output` (w, h) whose other windows' corners are `taken`: the
    port of compositor/shell/placement.cpp's place_new (centred, then a cascade that wraps and skips taken spots)."""
    span_x, span_y = max(output[0] - size[0], 0) + 1, max(output[1] - size[1], 0) + 1
    dx, dy = (span_x - 1) // 2, (span_y - 1) // 2
    first = (dx, dy)
    for _ in range(4 * (span_x // CASCADE_STEP + span_y // CASCADE_STEP + 2)):
        if all(abs(dx - x) >= CASCADE_STEP or abs(dy - y) >= CASCADE_STEP for x, y in taken):
            return dx, dy
        dx, dy = (dx + CASCADE_STEP) % span_x, (dy + CASCADE_STEP) % span_y
    return first


def kiln_position(index, output, probe=False):
    """Where kiln puts the index-th (0-based) window it maps, all WINDOW-sized but the 64x64 latency probe, which
    comes last: applied to sway by the runner."""
    window = tuple(int(v) for v in WINDOW.split("x"))
    taken = []
    for _ in range(index):
        taken.append(kiln_spot(output, window, taken))
    return kiln_spot(output, (64, 64) if probe else window, taken)


def sway_move(running, pid, xy):
    """Moves the floating window of client `pid` on a running sway to `xy` (swaymsg over its IPC socket)."""
    socks = list(running.runtime.glob("sway-ipc.*.sock"))
    if not socks:
        return
    env = dict(running.env, SWAYSOCK=str(socks[0]))
    subprocess.run(running.user_prefix() + ["swaymsg", f"[pid={pid}] move absolute position {xy[0]} {xy[1]}"],
                   env=env, capture_output=True, timeout=10)


def client_argv(kind, build):
    if kind == "simple-egl":
        return ["weston-simple-egl"]
    if kind == "dmabuf-memfd":
        return [str(build / "clients" / "kiln-demo-dmabuf"), "--source", "memfd", "--size", WINDOW]
    raise ValueError(kind)


class Clients:
    """The client processes of one run, each preloaded with the commit counter, and their counter files."""

    def __init__(self, running, build):
        self.running, self.build = running, build
        self.dir = running.runtime / "clients"
        self.dir.mkdir()
        if running.spec.user and os.geteuid() == 0:
            shutil.chown(self.dir, running.spec.user)
        self.procs = []
        self.probe = None
        self.probe_out = None

    def env(self):
        env = dict(self.running.client_env)
        env["LD_PRELOAD"] = str(self.build / "bench" / "libkiln-bench-frame-counter.so")
        env["KILN_BENCH_COUNTER_DIR"] = str(self.dir)
        return env

    def commits(self, pid):
        try:
            return int.from_bytes((self.dir / f"commits.{pid}").read_bytes()[:8], "little")
        except (OSError, ValueError):
            return 0

    def total_commits(self):
        return sum(self.commits(p.pid) for p in self.procs)

    def start_window(self, argv, index, timeout=15.0):
        """Starts one client and waits for its second commit (mapped and drawing); error text or None."""
        err = open(self.dir / f"client{index}.log", "wb")
        proc = subprocess.Popen(self.running.user_prefix() + argv, env=self.env(), stdout=err, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        err.close()
        self.procs.append(proc)
        deadline = time.monotonic() + timeout
        while self.commits(proc.pid) < 2:
            if proc.poll() is not None:
                return f"client {index} exited with status {proc.returncode} while starting: {self.client_log(index)}"
            if time.monotonic() > deadline:
                return (f"client {index} drew no frame within {timeout:.0f} s ({self.commits(proc.pid)} commits; "
                        f"log: {self.client_log(index) or 'empty'})")
            time.sleep(0.01)
        if self.running.spec.window_mover == "sway":
            self.sway_move(proc.pid, kiln_position(index, self.running.spec.output_size))
        return None

    def sway_move(self, pid, xy):
        sway_move(self.running, pid, xy)

    def start_probe(self, index):
        self.probe_out = self.dir / "probe.txt"
        out = open(self.probe_out, "wb")
        self.probe = subprocess.Popen(self.running.user_prefix() + [str(self.build / "bench" / "kiln-bench-latency-probe")],
                                      env=self.running.client_env, stdout=out, stderr=subprocess.DEVNULL,
                                      stdin=subprocess.DEVNULL)
        out.close()
        if self.running.spec.window_mover == "sway":
            time.sleep(0.3)
            self.sway_move(self.probe.pid, kiln_position(index, self.running.spec.output_size, probe=True))

    def probe_clock(self, timeout=5.0):
        """The clock the probe's times are on (weston: CLOCK_MONOTONIC_RAW), from its first line."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                first = self.probe_out.read_text().split("\n", 1)[0].split()
                if len(first) == 2 and first[0] == "C":
                    return int(first[1])
            except (OSError, ValueError):
                pass
            time.sleep(0.02)
        return time.CLOCK_MONOTONIC

    def client_log(self, index, chars=300):
        try:
            return (self.dir / f"client{index}.log").read_text(errors="replace")[-chars:].strip()
        except OSError:
            return ""

    def exited(self):
        return [i for i, p in enumerate(self.procs) if p.poll() is not None]

    def stop(self):
        for p in self.procs + ([self.probe] if self.probe else []):
            if p.poll() is None:
                p.send_signal(signal.SIGINT)  # weston-simple-egl quits cleanly on SIGINT only
        for p in self.procs + ([self.probe] if self.probe else []):
            try:
                p.wait(3)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def probe_samples(self, t0, t1):
        """(kind, latencies in ms, event times in s) of the probe's frames within [t0, t1]: presentation feedback
        where the compositor sent any, else frame callbacks (sway 1.7 headless never answers wp_presentation)."""
        found = {"P": ([], []), "F": ([], [])}
        try:
            lines = self.probe_out.read_text().splitlines()
        except OSError:
            lines = []
        for line in lines:
            f = line.split()
            if len(f) >= 3 and f[0] in found and t0 <= int(f[1]) / 1e6 <= t1:
                found[f[0]][0].append(int(f[2]) / 1000)
                found[f[0]][1].append(int(f[1]) / 1e6)
        if found["P"][0] and min(found["P"][0]) >= 0:
            return "commit→present", *found["P"]
        if found["P"][0] and found["F"][0]:
            # Seen once from weston-gl: presented times drifting before the commits. Not a latency; say so.
            return "commit→frame callback (presented times came before commits)", *found["F"]
        if found["F"][0]:
            return "commit→frame callback", *found["F"]
        return None, [], []


def percentile(values, q):
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def measure(running, build, kind, windows, seconds, warmup=1.0):
    """Runs `windows` clients of `kind` and the probe on `running`; a result dict (with "error" on failure)."""
    clients = Clients(running, build)
    row = {"windows": windows}
    try:
        for i in range(windows):
            error = clients.start_window(client_argv(kind, build), i)
            if error:
                row["error"] = error
                return row
            if not running.alive():
                row["error"] = "compositor died while clients started"
                return row
        clients.start_probe(windows)
        clock = clients.probe_clock()
        time.sleep(warmup)
        c0, cpu0, t0 = clients.total_commits(), proc_tree.tree_cpu_seconds(running.proc.pid), time.clock_gettime(clock)
        time.sleep(seconds)
        c1, cpu1, t1 = clients.total_commits(), proc_tree.tree_cpu_seconds(running.proc.pid), time.clock_gettime(clock)
        rss = proc_tree.tree_peak_rss_kib(running.proc.pid)
        if not running.alive():
            row["error"] = f"compositor exited with status {running.proc.returncode} during the run"
            return row
        gone = clients.exited()
        if gone:
            status = clients.procs[gone[0]].returncode
            row["error"] = f"client {gone[0]} exited with status {status} during the run: {clients.client_log(gone[0])}"
            return row
        frames = c1 - c0
        elapsed = t1 - t0
        lat_kind, lat, times = clients.probe_samples(t0, t1)
        row.update({
            "seconds": elapsed,
            "client_frames": frames,
            "client_fps_per_window": frames / elapsed / windows,
            "compositor_cpu_s": cpu1 - cpu0,
            "cpu_ms_per_client_frame": (cpu1 - cpu0) * 1000 / frames if frames else None,
            "compositor_cpu_percent": 100 * (cpu1 - cpu0) / elapsed,
            "peak_rss_mib": rss / 1024,
            "latency_kind": lat_kind,
            "latency_ms": lat,
            "latency_p50_ms": percentile(lat, 0.5),
            "latency_p99_ms": percentile(lat, 0.99),
            # The probe redraws on every frame callback, so its presentations (or, lacking them, its frame
            # callbacks) follow the output's repaints.
            "refresh_hz": (len(times) - 1) / (times[-1] - times[0]) if len(times) > 2 else None,
            "refresh_from": "presentations" if lat_kind == "commit→present" else lat_kind and "frame callbacks",
        })
        if frames == 0:
            row["error"] = "the clients committed no frame in the measuring window"
        return row
    finally:
        clients.stop()
