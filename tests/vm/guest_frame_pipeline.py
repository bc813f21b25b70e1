#!/usr/bin/env python3
"""Runs inside the VM: kiln's output ring and direct scan-out on vkms, checked from the kernel's side (debugfs). With
frames that take longer than half a refresh to finish (--debug-render-delay 12), kiln renders ahead: three distinct
ring buffers reach the primary plane; with 4 ms frames it does so only after a frame it measured slow. A fullscreen client's frames
presented with ZERO_COPY are its own dma-bufs on the plane (imported framebuffers), and every refresh vkms composed
while one was on screen has the CRC of that frame's colour. (vkms's CRC, not its writeback connector: writeback needs
an atomic commit from the DRM master, which is kiln, and wlroots 0.15 has no way to add a writeback job to its
commits; the CRC is read from debugfs by anyone and comes from the same composition of the planes.)"""
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import client_binary, kiln_binary  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pacing_judge import parse, slow_frames, unexplained_ahead  # noqa: E402

OUT = Path(os.environ.get("KILN_VM_OUT", "/tmp"))
# llvmpipe rasterizes in the calling thread: under TCG its worker threads' hand-offs cost more than drawing a small
# window, so the render time is the delay the test asks for, not the guest's scheduling.
ENV = dict(os.environ, WLR_LIBINPUT_NO_DEVICES="1", XDG_RUNTIME_DIR="/run/user-test", WAYLAND_DISPLAY="kiln-vm",
           LP_NUM_THREADS="0")
SOCKET = Path("/run/user-test/kiln-vm")
DELAY_MS = 12  # more than half of vkms's 60 Hz refresh (8.3 ms), less than all of it
LIGHT_DELAY_MS = 4  # well under half a refresh, but long enough for the client's next commit to arrive meanwhile
SAMPLE_S = 6
ZERO_COPY = 0x8

failures = []


def expect(condition, message):
    """Records a failed assertion and goes on, so one (slow, TCG) run reports every failure."""
    print(("ok: " if condition else "FAIL: ") + message, flush=True)
    if not condition:
        failures.append(message)
    return condition


class Kms:
    """vkms's debugfs: the primary plane's framebuffer, the framebuffers' attributes, the CRTC's CRC capture."""

    def __init__(self):
        root = Path("/sys/kernel/debug/dri")
        self.dir = next((d for d in sorted(root.iterdir()) if (d / "name").is_file() and
                         (d / "name").read_text().startswith("vkms")), None)
        if self.dir is None:
            raise AssertionError("no vkms directory under /sys/kernel/debug/dri")
        self.crc_fd = None
        self.crc_buffer = b""
        self.crcs = {}  # vblank count -> CRC of what vkms composed for it

    def plane_fb(self):
        state = (self.dir / "state").read_text()
        found = re.search(r"plane\[\d+\]: plane-0\n(?:\t.*\n)*?\tfb=(\d+)", state)
        return int(found.group(1)) if found else None

    def framebuffers(self):
        """{id: (size, imported)} for every framebuffer the device holds now."""
        fbs = {}
        for block in re.split(r"^framebuffer\[", (self.dir / "framebuffer").read_text(), flags=re.M)[1:]:
            fb = int(block[:block.index("]")])
            size = re.search(r"^\tsize=(\d+x\d+)", block, re.M)
            imported = re.search(r"imported=(yes|no)", block)
            fbs[fb] = (size.group(1) if size else "?", imported is not None and imported.group(1) == "yes")
        return fbs

    def start_crc(self):
        (self.dir / "crtc-0" / "crc" / "control").write_text("auto")
        self.crc_fd = os.open(self.dir / "crtc-0" / "crc" / "data", os.O_RDONLY | os.O_NONBLOCK)

    def read_crc(self):
        # One line per read(), and the kernel keeps 128: drain it each time, or entries are dropped.
        while True:
            try:
                chunk = os.read(self.crc_fd, 4096)
            except BlockingIOError:
                break
            if not chunk:
                break
            self.crc_buffer += chunk
        *lines, self.crc_buffer = self.crc_buffer.split(b"\n")
        for line in lines:
            fields = line.replace(b"\0", b"").split()
            if len(fields) >= 2:
                self.crcs[int(fields[0], 16)] = int(fields[1], 16)

    def stop_crc(self):
        self.read_crc()
        os.close(self.crc_fd)  # closing the data file ends the capture (and vkms's composing for it)
        self.crc_fd = None


def vkms_crc(colour, width, height):
    """vkms's CRC of a frame filled with one opaque colour: crc32_le (seed 0, no final inversion) over every row of
    its ARGB16161616 line buffer, each 8-bit channel widened as c * 257 (vkms_composer.c, vkms_formats.c)."""
    r, g, b = ((colour >> shift & 0xff) * 257 for shift in (16, 8, 0))
    pixel = b"".join(v.to_bytes(2, "little") for v in (0xffff, r, g, b))
    return zlib.crc32(pixel * (width * height), 0xffffffff) ^ 0xffffffff


class FenceClient:
    """kiln-fence-client in cycle mode, its log in a file: one colour per frame, commits and presentations logged."""

    def __init__(self, name, *args):
        self.path = OUT / f"{name}.log"
        self.process = subprocess.Popen([client_binary("kiln-fence-client"), "--mode", "cycle", *args], env=ENV,
                                        stdout=open(self.path, "w"), stderr=subprocess.STDOUT)

    def events(self, kind):
        """[(t_ms, {field: value})] for every logged event of that kind."""
        found = []
        for line in self.path.read_text().splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[1] == kind:
                try:
                    t = float(parts[0].removeprefix("t="))
                except ValueError:
                    continue
                found.append((t, dict(p.split("=", 1) for p in parts[2:] if "=" in p)))
        return found

    def presented(self, since_ms=0.0):
        return [(t, f) for t, f in self.events("presented") if t >= since_ms]

    def wait_presented(self, count, timeout=120):
        deadline = time.monotonic() + timeout
        while len(self.presented()) < count:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"{self.path.name}: fewer than {count} frames presented "
                                     f"({len(self.presented())}); log tail: {self.path.read_text()[-500:]}")
            time.sleep(0.2)

    def stop(self):
        self.process.terminate()
        self.process.wait(30)


class KilnRun:
    def __init__(self, *extra):
        self.stats_path = OUT / "stats.json"
        self.stats_path.unlink(missing_ok=True)
        self.process = subprocess.Popen(["seatd-launch", "--", kiln_binary(), "--backend", "drm", "--socket",
                                         "kiln-vm", "--stats", str(self.stats_path), *extra], env=ENV,
                                        stdout=open(OUT / "kiln.log", "a"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 90
        while not SOCKET.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("kiln did not open its socket on the DRM backend")
            time.sleep(0.2)
        pids = subprocess.run(["pgrep", "-x", "kiln"], capture_output=True, text=True).stdout.split()
        if len(pids) != 1:
            raise AssertionError(f"kiln's pid: {pids}")
        self.pid = int(pids[0])

    def stop(self):
        """SIGTERM (kiln writes its stats), then its frame statistics."""
        os.kill(self.pid, signal.SIGTERM)
        if self.process.wait(60) != 0:
            raise AssertionError("kiln did not exit 0 on SIGTERM")
        deadline = time.monotonic() + 10
        while SOCKET.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        frames = json.loads(self.stats_path.read_text())["frames"]
        print(f"  stats: {json.dumps(frames)}")
        return frames


def now_ms():
    return time.clock_gettime(time.CLOCK_MONOTONIC) * 1000


def ring_phase(kms, name):
    """A small window committing every 10 ms on its own clock (a video: damage is waiting whenever a frame is
    committed). Returns the ring framebuffers seen on the primary plane and the msc steps between its frames."""
    client = FenceClient(name, "--size", "64x64", "--interval-ms", "4", "--unthrottled", "--buffers", "8")
    try:
        client.wait_presented(30)  # past start-up: EGL, shader compiles
        start = now_ms()
        seen = []
        while now_ms() - start < SAMPLE_S * 1000:
            seen.append(kms.plane_fb())
            time.sleep(0.02)
        fbs = kms.framebuffers()
        presented = client.presented(start)
    finally:
        client.stop()
    output = max((size for size, _ in fbs.values()), key=lambda s: int(s.split("x")[0]) * int(s.split("x")[1]),
                 default="?")
    ring = sorted({fb for fb in seen if fb in fbs and not fbs[fb][1] and fbs[fb][0] == output})
    mscs = [int(f["msc"]) for _, f in presented]
    steps = [b - a for a, b in zip(mscs, mscs[1:])]
    commits = {int(f["seq"]): t for t, f in client.events("commit")}
    latency = [t - commits[int(f["seq"])] for t, f in presented if int(f["seq"]) in commits]
    print(f"  {name}: {len(seen)} plane samples, ring framebuffers on the plane {ring} (all seen: "
          f"{sorted(set(seen), key=str)}); {len(presented)} frames presented in {SAMPLE_S} s, msc steps "
          f"{steps[:40]}, commit-to-present median {statistics.median(latency) if latency else float('nan'):.1f} ms")
    return ring, steps


def heavy_load(kms):
    # --debug-render-delay holds back a GL frame's render-done, as a slow GPU would: GL draws every frame here (where
    # GL is software, kiln would compose the client's linear udmabufs on the CPU, in step, with nothing to delay).
    kiln = KilnRun("--composition", "gl", "--debug-render-delay", str(DELAY_MS))
    try:
        ring, steps = ring_phase(kms, "heavy")
    finally:
        frames = kiln.stop()
    expect(len(ring) >= 3, f"a frame takes {DELAY_MS} ms: three distinct ring buffers reached the plane ({ring})")
    expect(frames["ring_slots"] == 3, f"kiln's ring grew to three buffers ({frames['ring_slots']})")
    expect(frames["render_ahead"] > 0, f"frames were rendered ahead ({frames['render_ahead']} of {frames['rendered']})")
    # Not judged: under TCG the rate follows the host's load (from 18 to 56 of this client's frames a second in this
    # test's runs, at the same code), and without render-ahead it was no worse on a busy host; printed for the record.
    print(f"  heavy load: median msc step {statistics.median(steps) if steps else 'none'}, {steps.count(1)} of "
          f"{len(steps)} steps are 1 (not judged)")


def light_load_and_scanout(kms):
    kiln = KilnRun("--composition", "gl", "--debug-render-delay", str(LIGHT_DELAY_MS))
    try:
        # Start-up's first GL frames take seconds (EGL, shader compiles), and kiln's frame-time estimate decays from
        # there over dozens of frames: a client paced by frame callbacks (no damage waits at a commit, so nothing is
        # drawn ahead) gets past that first.
        warm_up = FenceClient("warm-up", "--size", "64x64")
        try:
            warm_up.wait_presented(60)
        finally:
            warm_up.stop()
        ring, _ = ring_phase(kms, "light")
        scanout(kms)
    finally:
        frames = kiln.stop()
    # After a TCG stall (a frame of 50-200 ms) kiln's frame-time estimate is over half a refresh for a few dozen
    # frames, and it rightly draws ahead then. How many stalls there are follows the host's load (a third of the
    # frames were drawn ahead with a second job on a 2-core host), so each drawn-ahead frame is judged against the
    # frame times kiln measured just before it (pacing_judge.py), never by a share of the run.
    entries = parse(frames["pacing"])
    unexplained = unexplained_ahead(entries)
    print(f"  light load: {frames['render_ahead']} of {frames['rendered']} frames drawn ahead, {len(entries)} "
          f"commits, {slow_frames(entries)} of them slow (over half a refresh: the host's stalls); ring framebuffers "
          f"on the plane {ring}, {frames['ring_slots']} slots")
    expect(entries and not unexplained,
           f"light load ({LIGHT_DELAY_MS} ms a frame): every frame drawn ahead follows a slow frame within the "
           f"estimate's decay ({len(unexplained)} do not, at commits {unexplained[:10]})")
    expect(frames["direct_scanout"] > 0, f"kiln counted direct scan-outs ({frames['direct_scanout']})")


def scanout(kms):
    """A fullscreen dma-buf client, one colour per frame: what vkms composed on the refreshes its ZERO_COPY frames
    were presented at is that frame's colour, from an imported framebuffer on the primary plane."""
    # Three buffers of three colours, never refilled: under TCG vkms's composer computes a refresh's CRC long after
    # it (hundreds of ms), from that refresh's framebuffer, whose buffer the client may have got back meanwhile.
    client = FenceClient("fullscreen", "--fullscreen", "--keep-colours", "--interval-ms", "50")
    try:
        client.wait_presented(5)
        kms.start_crc()
        start = now_ms()
        seen = []
        while now_ms() - start < 5000:
            seen.append(kms.plane_fb())
            kms.read_crc()
            time.sleep(0.02)
        fbs = kms.framebuffers()
        (OUT / "fullscreen-framebuffers.txt").write_text((kms.dir / "framebuffer").read_text())
        (OUT / "fullscreen-crcs.txt").write_text("".join(f"{k} {v:08x}\n" for k, v in sorted(kms.crcs.items())))
        (OUT / "fullscreen-plane.txt").write_text(" ".join(map(str, seen)))
        kms.stop_crc()
        presented = client.presented(start)
        colours = {int(f["seq"]): int(f["colour"], 16) for _, f in client.events("commit")}
    finally:
        client.stop()
    size = max((s for s, _ in fbs.values()), key=lambda s: int(s.split("x")[0]) * int(s.split("x")[1]))
    width, height = (int(v) for v in size.split("x"))
    imported = sorted({fb for fb in seen if fb in fbs and fbs[fb][1]})
    expect(imported, f"the primary plane showed the client's imported dma-buf framebuffers ({imported}; all seen: "
                     f"{sorted(set(seen), key=str)})")
    # Each frame is on screen from the refresh it was presented at until the next frame's.
    shown = [(int(f["msc"]), int(f["flags"], 16), colours.get(int(f["seq"]))) for _, f in presented]
    zero_copy = [(msc, until, colour) for (msc, flags, colour), (until, _, _) in zip(shown, shown[1:])
                 if flags & ZERO_COPY and colour is not None]
    captured = [z for z in zero_copy if z[0] >= min(kms.crcs, default=1 << 62) and z[1] <= max(kms.crcs, default=0)]
    matched = [(msc, until, colour) for msc, until, colour in captured
               if {kms.crcs.get(v) for v in range(msc, until)} <= {vkms_crc(colour, width, height), None}]
    missed = [(msc, until, f"{colour:06x}", [f"{kms.crcs.get(v, 0):08x}" for v in range(msc, until)])
              for msc, until, colour in captured if (msc, until, colour) not in matched]
    print(f"  fullscreen: {len(presented)} frames presented, {len(zero_copy)} with ZERO_COPY, {len(kms.crcs)} CRCs "
          f"(vblanks {min(kms.crcs, default=0)}-{max(kms.crcs, default=0)}); not matched: {missed[:5]}")
    expect(len(zero_copy) >= 5, f"the fullscreen client's frames came with ZERO_COPY ({len(zero_copy)} of "
                                f"{len(presented)})")
    expect(len(captured) >= 5 and len(matched) == len(captured),
           f"every refresh vkms composed while a ZERO_COPY frame was on screen has that frame's colour "
           f"({len(matched)} of {len(captured)} within the CRC capture)")


def main():
    kms = Kms()
    heavy_load(kms)
    light_load_and_scanout(kms)
    if failures:
        print(f"FAIL: {len(failures)} assertion(s):\n  " + "\n  ".join(failures), file=sys.stderr)
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as error:
        print(f"FAIL: {error}", file=sys.stderr)
        sys.exit(1)
    finally:
        log = OUT / "kiln.log"
        if log.exists():
            print(log.read_text()[-2000:])
