#!/usr/bin/env python3
"""Runs inside the VM: explicit sync (wp_linux_drm_syncobj_manager_v1) on kiln's DRM backend (vkms with timeline
syncobjs). kiln-syncobj-client signals its acquire points from the CPU: new content never shows before its acquire
point, shows soon after; frame callbacks and presentation follow the signal; a release point comes only once a later
buffer replaced the one it releases; a never-signalled point stalls no one and a client killed while waiting leaks
no fd; a timeline destroyed while waiting still counts; every protocol error reaches its client alone."""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Screenshot, client_binary, kiln_binary, rgb  # noqa: E402

OUT = Path(os.environ.get("KILN_VM_OUT", "/tmp"))
ENV = dict(os.environ, WLR_LIBINPUT_NO_DEVICES="1", XDG_RUNTIME_DIR="/run/user-test", WAYLAND_DISPLAY="kiln-vm")
SHOWN_WITHIN_MS = 200  # new content on screen within ~200 ms of its acquire point (two frames at 60 Hz and margin),
# or within two of a bystander's frame intervals when TCG on a busy host turns frames around more slowly than that
MIN_PIXELS = 2000      # a 320x120 window's colour, counted on a 4x4 grid, is ~2400 samples (x16)

failures = []


def expect(condition, message):
    """Records a failed assertion and goes on, so one (slow, TCG) run reports every failure."""
    print(("ok: " if condition else "FAIL: ") + message, flush=True)
    if not condition:
        failures.append(message)
    return condition


def screenshot(region=None):
    """The output, or the region "x,y wxh" of it (much faster under TCG: less to copy and encode)."""
    result = subprocess.run(["grim", "-t", "ppm", *(["-g", region] if region else []), "-"], env=ENV,
                            capture_output=True, timeout=60)
    if result.returncode != 0:
        raise AssertionError(f"grim failed: {result.stderr.decode(errors='replace').strip()}")
    return Screenshot.from_ppm(result.stdout)


class Shots:
    """Screenshots on a thread, timed to a client's log: one as soon as a frame is committed (its acquire point is
    still pending) and one AFTER_SIGNAL_MS after the point is signalled. Each remembers when it was asked for and
    when it came back, and how much of each watched colour it holds. (Shooting without a pause instead falls into
    each 1.5 s wait at random, and one screenshot takes 0.7-1.6 s under TCG.)"""

    AFTER_SIGNAL_MS = 300

    def __init__(self, client, colours, region=None):
        self.client = client
        self.colours = colours
        self.region = region
        self.shots = []  # (start, end, {colour: samples}), filled in by stop()
        self._raw = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _due(self, taken):
        now = time.monotonic() * 1000
        for t, fields in self.client.of("commit"):
            if ("commit", fields["frame"]) not in taken:
                return ("commit", fields["frame"])
        for t, fields in self.client.of("acquire_signalled"):
            if ("signal", fields["frame"]) not in taken and now >= t + self.AFTER_SIGNAL_MS:
                return ("signal", fields["frame"])
        return None

    def _loop(self):
        # Frames committed before the thread started are shot too (late): their shots count where their times fit.
        taken = set()
        while not self._stop.is_set():
            due = self._due(taken)
            if not due:
                time.sleep(0.01)
                continue
            taken.add(due)
            start = time.monotonic() * 1000
            shot = screenshot(self.region)
            self._raw.append((start, time.monotonic() * 1000, shot))

    def stop(self):
        self._stop.set()
        self._thread.join(60)
        # Pixels are counted after the run: under TCG counting takes as long as grim itself.
        self.shots = [(start, end, {c: shot.count(rgb(c), tolerance=6, step=4) * 16 for c in self.colours})
                      for start, end, shot in self._raw]
        self._raw = []

    def shows(self, shot, colour):
        return shot[2][colour] >= MIN_PIXELS


class SyncobjClient:
    """kiln-syncobj-client with its event log parsed as it arrives: events[name] is a list of (t_ms, fields)."""

    LINE = re.compile(r"^t=([0-9.]+) (\w+)(.*)$")

    def __init__(self, name, *args):
        self.name = name
        self.lines = []
        self.events = {}
        self.process = subprocess.Popen([client_binary("kiln-syncobj-client"), *args], env=ENV,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self):
        for line in self.process.stdout:
            line = line.rstrip("\n")
            self.lines.append(line)
            match = self.LINE.match(line)
            if match:
                fields = dict(kv.split("=", 1) for kv in match.group(3).split())
                self.events.setdefault(match.group(2), []).append((float(match.group(1)), fields))

    def of(self, event, frame=None):
        return [(t, f) for t, f in self.events.get(event, []) if frame is None or f.get("frame") == str(frame)]

    def first(self, event, frame):
        found = self.of(event, frame)
        return found[0][0] if found else None

    def wait_for(self, event, frame=None, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.of(event, frame):
                return True
            if self.process.poll() is not None:
                self._thread.join(5)
                return bool(self.of(event, frame))
            time.sleep(0.05)
        return False

    def stop(self, sig=signal.SIGTERM):
        if self.process.poll() is None:
            self.process.send_signal(sig)
        self.process.wait(30)
        self._thread.join(5)
        (OUT / f"{self.name}.log").write_text("\n".join(self.lines) + "\n")


def window_region(shot, colour):
    """grim's geometry for the middle of the window showing `colour` (a 4-pixel grid is enough to find it)."""
    r, g, b = rgb(colour)
    xs, ys = [], []
    for y in range(0, shot.height, 4):
        for x in range(0, shot.width, 4):
            p = shot.at(x, y)
            if abs(p[0] - r) <= 6 and abs(p[1] - g) <= 6 and abs(p[2] - b) <= 6:
                xs.append(x)
                ys.append(y)
    if not xs:
        raise AssertionError(f"no window of colour {colour} on screen")
    x0, y0, x1, y1 = min(xs) + 8, min(ys) + 8, max(xs) - 8, max(ys) - 8
    return f"{x0},{y0} {x1 - x0}x{y1 - y0}"


def fd_count(pid):
    """kiln's fds, less the dma-bufs that are not udmabuf (its own output buffers: the ring allocates its third slot
    only when a frame first renders ahead, which has nothing to do with clients)."""
    count = 0
    for fd, target in fd_targets(pid).items():
        if target.startswith("/dmabuf:"):
            try:
                if "udmabuf" not in Path(f"/proc/{pid}/fdinfo/{fd}").read_text():
                    continue
            except OSError:
                continue
        count += 1
    return count


def fd_targets(pid):
    """What each of kiln's fds is (socket:[...], anon_inode:[eventfd], /dmabuf:, ...), for naming a leak."""
    targets = {}
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            targets[fd] = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            pass
    return targets


def print_new_fds(pid, before):
    for fd, target in sorted(set(fd_targets(pid).items()) - set(before.items())):
        try:
            info = " ".join(Path(f"/proc/{pid}/fdinfo/{fd}").read_text().split())
        except OSError:
            info = "(gone)"
        print(f"  kiln's fd {fd} is new: {target} {info}")


def settled_fd_count(pid, expected, timeout=5):
    """kiln's fd count once it reaches `expected` (a disconnect is handled on kiln's next loop turn), or after
    `timeout` seconds."""
    # Frames in flight open and close fds (render fences, exported sync_files): the count asserted on is the sample
    # that ended the wait, never a second read that may catch one in passing.
    deadline = time.monotonic() + timeout
    count = fd_count(pid)
    while count != expected and time.monotonic() < deadline:
        time.sleep(0.1)
        count = fd_count(pid)
    return count


def delayed_acquire():
    """Frames whose acquire points are signalled 1.5 s (or longer, below) after their commits, screenshots all
    along."""
    colours = ["d02020", "20d020", "2020d0", "d0d020", "20d0d0", "d020d0"]
    frames = len(colours)
    # Each acquire point is held long enough for whole screenshots to fit before and after its signal: 1.5 s, or three
    # times what a screenshot of the window's size takes in this run (under TCG on a busy host one took over 1.5 s,
    # and that run saw no screenshot while a commit waited).
    slowest = 0.0
    for _ in range(2):
        started = time.monotonic()
        screenshot("0,0 320x240")
        slowest = max(slowest, time.monotonic() - started)
    delay_ms = max(1500, int(3000 * slowest))
    print(f"a 320x240 screenshot takes up to {slowest * 1000:.0f} ms: acquire points held {delay_ms} ms")
    # A small bystander measures how fast kiln turns a commit into a frame callback under this run's load. Wider than
    # the delayed client's window, which maps over it centred: a window wholly under an opaque one is suspended
    # (xdg-shell v6, its frame callbacks wait), and a 64x64 one gave no pace at all (nothing counted "due on screen").
    pace = SyncobjClient("pace", "--size", "400x32", "--colors", "808080,909090", "--acquire-delay-ms", "0")
    client = SyncobjClient("delayed", "--size", "320x240", "--colors", ",".join(colours), "--frames", str(frames),
                           "--first-delay-ms", "0", "--acquire-delay-ms", str(delay_ms), "--stay")
    shots = None
    try:
        # Frame 0 shows at once: find the window, then screenshot only its middle (frame 1's wait may pass unseen).
        client.wait_for("frame_done", 0, timeout=60)
        shots = Shots(client, colours, window_region(screenshot(), colours[0]))
        if not expect(client.wait_for("done", timeout=40 + frames * delay_ms / 1000),
                      f"the delayed-acquire client committed its {frames} frames"):
            print("\n".join(client.lines[-20:]))
            return
        time.sleep(1.0)  # screenshots of the last frame on screen, and time for releases to arrive
    finally:
        if shots:
            shots.stop()
        client.stop()
        pace.stop()
    print("\n".join(client.lines))
    # The bystander ran on for a second after the last frame: its gaps cover every wait, a stall at the end too.
    start, end = client.first("commit", 1) or 0, client.first("done", None) or float("inf")
    pace_done = [t for t, _ in pace.of("frame_done") if t >= start]
    intervals = sorted(b - a for a, b in zip(pace_done, pace_done[1:]) if b <= end)
    median = intervals[len(intervals) // 2] if intervals else float("inf")
    within = max(SHOWN_WITHIN_MS, 2 * median)
    print(f"bystander frame interval: median {median:.0f} ms over {len(intervals)}; content due within {within:.0f} ms")
    print(f"{len(shots.shots)} screenshots, {sum(s[1] - s[0] for s in shots.shots) / max(1, len(shots.shots)):.0f} ms each")
    signalled = {i: client.first("acquire_signalled", i) for i in range(frames)}
    committed = {i: client.first("commit", i) for i in range(frames)}
    later = 0  # screenshots taken wholly after a signal (plus `within`) and before the next one
    held = 0  # screenshots taken wholly between a commit and its acquire signal (grim takes ~0.7 s under TCG)
    for i in range(1, frames):
        s, c = signalled[i], committed[i]
        if not expect(s is not None and c is not None, f"frame {i} was committed and its acquire point signalled"):
            continue
        expect(s - c >= delay_ms - 50, f"frame {i}: acquire signalled {s - c:.0f} ms after its commit")
        before = [shot for shot in shots.shots if shot[0] >= c and shot[1] < s]
        held += len(before)
        early = [shot for shot in before if shots.shows(shot, colours[i])]
        expect(not early,
               f"frame {i}: none of the {len(before)} screenshots taken between commit and acquire signal shows its "
               f"colour{'' if not early else f' (one taken {early[0][1] - s:.0f} ms before the signal does)'}")
        old = [shot for shot in before if shots.shows(shot, colours[i - 1])]
        expect(len(old) == len(before), f"frame {i}: those screenshots show frame {i - 1}'s colour ({len(old)})")
        next_signal = signalled.get(i + 1) or float("inf")
        after = [shot for shot in shots.shots if s + within <= shot[0] and shot[1] < next_signal]
        shown = [shot for shot in after if shots.shows(shot, colours[i])]
        later += len(after)
        expect(len(shown) == len(after),
               f"frame {i}: every screenshot taken from {within:.0f} ms after the signal on shows it "
               f"({len(shown)}/{len(after)})")
        first_shown = next((shot for shot in shots.shots if shots.shows(shot, colours[i])), None)
        if first_shown:
            print(f"  frame {i}: first screenshot with it returned {first_shown[1] - s:.0f} ms after the signal")
        done = client.first("frame_done", i)
        expect(done is not None and done >= s, f"frame {i}: frame callback {done - s if done else float('nan'):.0f} ms "
                                               f"after the acquire signal")
        presented = client.of("presented", i)
        if expect(len(presented) == 1, f"frame {i}: presentation feedback 'presented'"):
            at = float(presented[0][1]["at"])
            expect(presented[0][1]["clock"] == str(time.CLOCK_MONOTONIC), "the presentation clock is CLOCK_MONOTONIC")
            # The bystander's frames around the same moment tell kiln's own delay from the host's (TCG shares two
            # cores with whatever else runs): the bound grows with the longest of its gaps that overlaps this wait.
            gaps = [b - a for a, b in zip(pace_done, pace_done[1:]) if b > s and a < at]
            bound = max(SHOWN_WITHIN_MS, 2 * max(gaps, default=median))
            expect(s <= at <= s + bound, f"frame {i}: presented {at - s:.0f} ms after its acquire point signalled "
                                         f"(bound {bound:.0f} ms; the bystander's longest gap then "
                                         f"{max(gaps, default=float('nan')):.0f} ms)")
    # Under TCG on a busy host one screenshot can take 1.5 s: demand only that both sides were seen at all.
    expect(held >= 1 and later >= 1, f"{held} screenshots were taken while a commit waited for its acquire point, "
                                     f"{later} once it was due on screen")
    # Release points: frame k's buffer is released once frame k+1 replaced it, never before.
    for k in range(0, frames - 1):
        release = client.first("release", k)
        if not expect(release is not None, f"frame {k}'s release point was signalled"):
            continue
        s_next = signalled[k + 1]
        expect(s_next is not None and release >= s_next,
               f"frame {k}'s release point came {release - s_next:.0f} ms after frame {k + 1}'s acquire point "
               f"(not before the later buffer could replace it)")
        still = [shot for shot in shots.shots if shot[0] > release and shots.shows(shot, colours[k])]
        expect(not still, f"no screenshot asked for after frame {k}'s release shows frame {k}'s colour ({len(still)})")
        presented_next = client.of("presented", k + 1)
        if presented_next:
            print(f"  frame {k}: released {release - float(presented_next[0][1]['at']):+.1f} ms relative to frame "
                  f"{k + 1}'s presentation time")
    expect(not client.of("release", frames - 1), "the last frame's buffer (still on screen) was not released")


def scanout_release():
    """Fullscreen and opaque, a buffer may be scanned out directly (presentation says zero_copy): then it is in use
    until the next buffer's page flip, so its release point must not come before that frame's presentation time."""
    client = SyncobjClient("fullscreen", "--fullscreen", "--colors", "c04080,40c080,8040c0,c0c040,40c0c0", "--frames", "5",
                           "--acquire-delay-ms", "300", "--stay")
    try:
        finished = expect(client.wait_for("done", timeout=60), "the fullscreen client committed its frames")
        time.sleep(0.5)
    finally:
        client.stop()
    print("\n".join(client.lines if not finished else client.lines[:3]))
    zero_copy = [k for k in range(5) if any(f.get("zero_copy") == "1" for _, f in client.of("presented", k))]
    # Without a frame scanned out the check below would pass on nothing.
    expect(len(zero_copy) >= 2, f"fullscreen frames were scanned out directly (zero_copy): {zero_copy}")
    for k in zero_copy:
        release, presented_next = client.first("release", k), client.of("presented", k + 1)
        if release is None or not presented_next:
            continue
        flip = float(presented_next[0][1]["at"])
        expect(release >= flip, f"scanned-out frame {k} was released {release - flip:+.0f} ms from frame {k + 1}'s "
                                f"page flip (not before it)")


def stalls_and_errors(kiln_pid):
    """A bystander runs throughout; a client's never-signalled point, its timeline destroyed while waiting, its death
    while waiting, and every protocol error must leave kiln and the bystander alone."""
    bystander = SyncobjClient("bystander", "--size", "200x150", "--colors", "20a0a0,a020a0", "--acquire-delay-ms", "0")
    try:
        expect(bystander.wait_for("frame_done", 5, timeout=30), "the bystander (explicit sync, no delay) runs")
        count = len(bystander.of("frame_done"))
        time.sleep(3)
        rate_alone = (len(bystander.of("frame_done")) - count) / 3
        fds_before = fd_count(kiln_pid)
        targets_before = fd_targets(kiln_pid)

        # Shorter than the bystander: both are centred, and a window wholly under an opaque one is suspended (its
        # frame callbacks wait, xdg-shell v6), which would stop the bystander for a reason other than the stuck one.
        stuck = SyncobjClient("stuck", "--size", "320x120", "--colors", "e08020,8020e0", "--frames", "2",
                              "--never-signal-from", "1", "--stay")
        expect(stuck.wait_for("acquire_never", 1, timeout=60), "a client committed a frame whose acquire never comes")
        time.sleep(0.5)
        count = len(bystander.of("frame_done"))
        shot = screenshot()
        time.sleep(3)
        rate = (len(bystander.of("frame_done")) - count) / 3
        expect(rate > 0 and rate >= 0.5 * rate_alone,
               f"the bystander keeps going while the other waits forever ({rate:.1f} frames/s, {rate_alone:.1f} alone)")
        expect(shot.count(rgb("e08020"), tolerance=6, step=4) * 16 >= MIN_PIXELS and
               shot.count(rgb("8020e0"), tolerance=6, step=4) == 0,
               "the stuck client's old frame stays on screen, its pending one never shows")
        expect(not stuck.of("frame_done", 1) and not stuck.of("presented", 1),
               "no frame callback or presentation for the never-signalled frame")
        fds_waiting = fd_count(kiln_pid)
        stuck.stop(signal.SIGKILL)
        fds_after = settled_fd_count(kiln_pid, fds_before)
        print(f"kiln's fds: {fds_before} before, {fds_waiting} while the client waited, {fds_after} after it was killed")
        if not expect(fds_after == fds_before, "killing a client that waits on an acquire point leaks no fd in kiln"):
            print_new_fds(kiln_pid, targets_before)
        expect(os.path.exists(f"/proc/{kiln_pid}") and bystander.process.poll() is None,
               "kiln and the bystander survive the killed client")

        # The timeline object destroyed while its acquire point is awaited: the point still counts (the spec: points
        # already set are not unset).
        orphan = SyncobjClient("orphan", "--size", "320x240", "--colors", "40e040,e04040", "--frames", "2",
                               "--acquire-delay-ms", "1500", "--destroy-timeline-at", "1", "--stay")
        expect(orphan.wait_for("timeline_destroyed", 1, timeout=60), "a timeline object was destroyed while waited on")
        expect(orphan.wait_for("frame_done", 1, timeout=30), "its frame still arrives once the point is signalled")
        signalled, done = orphan.first("acquire_signalled", 1), orphan.first("frame_done", 1)
        if signalled and done:
            expect(done >= signalled, f"and only after the signal ({done - signalled:.0f} ms)")
        time.sleep(0.5)
        shot = screenshot()
        expect(shot.count(rgb("e04040"), tolerance=6, step=4) * 16 >= MIN_PIXELS,
               "the frame behind the destroyed timeline is on screen")
        expect(orphan.process.poll() is None, "the client was not disconnected for it")
        orphan.stop()
        if not expect(settled_fd_count(kiln_pid, fds_before) == fds_before, "its fds in kiln are gone with it"):
            print_new_fds(kiln_pid, targets_before)

        for mode, interface, code in (
                ("surface-exists", "wp_linux_drm_syncobj_manager_v1", 0),
                ("invalid-timeline", "wp_linux_drm_syncobj_manager_v1", 1),
                ("no-surface", "wp_linux_drm_syncobj_surface_v1", 1),
                ("unsupported-buffer", "wp_linux_drm_syncobj_surface_v1", 2),
                ("no-buffer", "wp_linux_drm_syncobj_surface_v1", 3),
                ("no-acquire-point", "wp_linux_drm_syncobj_surface_v1", 4),
                ("no-release-point", "wp_linux_drm_syncobj_surface_v1", 5),
                ("conflicting-points", "wp_linux_drm_syncobj_surface_v1", 6)):
            before = len(bystander.of("frame_done"))
            result = subprocess.run([client_binary("kiln-syncobj-client"), "--error", mode], env=ENV,
                                    capture_output=True, text=True, timeout=60)
            got = re.search(r"protocol error: interface=(\S+) code=(\d+)", result.stdout)
            expect(got is not None and got.group(1) == interface and int(got.group(2)) == code,
                   f"{mode}: {interface} error {code} (got: {got.group(0) if got else result.stdout.strip()[-200:]})")
            time.sleep(0.3)
            expect(os.path.exists(f"/proc/{kiln_pid}") and bystander.process.poll() is None and
                   len(bystander.of("frame_done")) > before, f"{mode}: kiln and the bystander carry on")
            # A frame still holding the killed client's buffer lets go at its fence: seconds under TCG on a busy host.
            if not expect(settled_fd_count(kiln_pid, fds_before, timeout=10) == fds_before,
                          f"{mode}: the client's fds in kiln are gone with it"):
                print_new_fds(kiln_pid, targets_before)
        fds_end = settled_fd_count(kiln_pid, fds_before)
        if not expect(fds_end == fds_before, f"kiln's fd count is back to {fds_before} after all those clients"):
            print_new_fds(kiln_pid, targets_before)
    finally:
        bystander.stop()


def main():
    stats_path = OUT / "stats.json"
    kiln = subprocess.Popen(["seatd-launch", "--", kiln_binary(), "--backend", "drm", "--socket", "kiln-vm",
                             "--stats", str(stats_path)], env=ENV, stdout=open(OUT / "kiln.log", "w"),
                            stderr=subprocess.STDOUT)
    try:
        socket = Path("/run/user-test/kiln-vm")
        deadline = time.monotonic() + 90
        while not socket.exists():
            if kiln.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("kiln did not open its socket on the DRM backend")
            time.sleep(0.2)
        pid = subprocess.run(["pgrep", "-x", "kiln"], capture_output=True, text=True).stdout.split()
        if len(pid) != 1:
            raise AssertionError(f"kiln's pid: {pid}")
        kiln_pid = int(pid[0])
        probe = subprocess.run([client_binary("kiln-syncobj-client"), "--frames", "1"], env=ENV, capture_output=True,
                               text=True, timeout=60)
        if not expect(probe.returncode == 0, f"kiln offers wp_linux_drm_syncobj_manager_v1 on vkms and a one-frame "
                                             f"explicit-sync client runs ({probe.returncode}: {probe.stdout[-300:]})"):
            raise AssertionError("no explicit sync to test")

        delayed_acquire()
        scanout_release()
        stalls_and_errors(kiln_pid)

        os.kill(kiln_pid, signal.SIGTERM)
        expect(kiln.wait(60) == 0, "kiln exits 0 on SIGTERM")
        fences = json.loads(stats_path.read_text()).get("fences", {})
        print(f"stats: fences {json.dumps(fences)}")
        expect(fences.get("syncobj_offered") == 1, "stats: syncobj offered")
        expect(fences.get("syncobj_acquire_waits", 0) >= 4, "stats: kiln held commits for their acquire points")
    finally:
        if kiln.poll() is None:
            kiln.kill()
        print((OUT / "kiln.log").read_text()[-3000:])
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
