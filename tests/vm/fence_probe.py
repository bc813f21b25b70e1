"""What the VM fence tests observe: screenshots stamped with the CLOCK_MONOTONIC interval they were taken in, colour
counts fast enough for a TCG guest (whole channels at once, no per-pixel Python), and kiln-fence-client's event log
read as it comes."""
import subprocess
import threading
import time
from pathlib import Path

TOLERANCE = 6


class Shot:
    """A grim screenshot taken between `start` and `end` (CLOCK_MONOTONIC ms)."""

    def __init__(self, ppm, start, end):
        fields = ppm.split(maxsplit=4)  # P6 W H 255 pixels (grim writes no comments)
        if fields[0] != b"P6" or fields[3] != b"255":
            raise ValueError("grim did not write an 8-bit binary PPM")
        self.width, self.height = int(fields[1]), int(fields[2])
        pixels = ppm[len(ppm) - self.width * self.height * 3:]
        self.channels = (pixels[0::3], pixels[1::3], pixels[2::3])
        self.start, self.end = start, end

    def count(self, rgb, tolerance=TOLERANCE):
        """Pixels within `tolerance` of `rgb` (RRGGBB int) in every channel."""
        mask = -1
        for shift, channel in zip((16, 8, 0), self.channels):
            value = (rgb >> shift) & 0xff
            table = bytes(1 if abs(v - value) <= tolerance else 0 for v in range(256))
            mask &= int.from_bytes(channel.translate(table), "little")
        return mask.bit_count()


def screenshot(env):
    start = time.monotonic() * 1e3
    result = subprocess.run(["grim", "-t", "ppm", "-"], env=env, capture_output=True, timeout=60)
    end = time.monotonic() * 1e3
    if result.returncode != 0:
        raise AssertionError(f"grim failed: {result.stderr.decode(errors='replace').strip()}")
    return Shot(result.stdout, start, end)


class Event:
    def __init__(self, line):
        parts = line.split()
        self.t = float(parts[0])
        self.name = parts[1]
        self.fields = dict(p.split("=", 1) for p in parts[2:] if "=" in p)
        self.line = line

    def int(self, key):
        return int(self.fields[key])

    def __repr__(self):
        return self.line


class FenceClient:
    """kiln-fence-client, its stdout parsed into events by a reader thread and copied to `log_path`."""

    def __init__(self, binary, args, env, log_path, pass_fds=()):
        self.events = []
        self.lock = threading.Condition()
        self.log_path = Path(log_path)
        self.proc = subprocess.Popen([binary] + list(args), env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, bufsize=1, pass_fds=pass_fds)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        # The copy is written buffered, never a flush per line: `log_path` lies on the guest's 9p mount, where under
        # TCG on a busy host each flush is a slow round trip to the host. Flushed per line, this reader fell seconds
        # behind a client logging five lines a frame, the pipe filled, the client blocked on its own log (gaps of
        # 1-5 s in its frames) and the test counted no frames in windows the client had drawn in (vm_fences' [never]
        # 'nan ms before': 0 intervals in 20 s while the client's log shows 250 frames in them).
        with open(self.log_path, "w", buffering=1 << 16) as log:
            for line in self.proc.stdout:
                log.write(line)
                try:
                    event = Event(line)
                except (ValueError, IndexError):
                    continue  # not an event line (an error message)
                with self.lock:
                    self.events.append(event)
                    self.lock.notify_all()

    def send(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def wait_for(self, name, timeout=30, **fields):
        """The first event called `name` whose fields match, waiting up to `timeout` s; None when it never came."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                found = self.find(name, **fields)
                if found:
                    return found[0]
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self.reader.is_alive()):
                    return None
                self.lock.wait(min(left, 0.5))

    def find(self, name, **fields):
        with self.lock:
            return [e for e in self.events
                    if e.name == name and all(e.fields.get(k) == str(v) for k, v in fields.items())]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(20)
        self.reader.join(20)
        self.proc.stdin.close()


def median(values):
    values = sorted(values)
    if not values:
        return float("nan")
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def frame_intervals(client, start, end):
    """Intervals (ms) between a client's frame callbacks inside [start, end]."""
    times = [e.t for e in client.find("frame") if start <= e.t <= end]
    return [b - a for a, b in zip(times, times[1:])]


class ShotColours:
    """How many pixels of each colour a screenshot taken between `start` and `end` (ms) showed."""

    def __init__(self, start, end, counts):
        self.start, self.end, self.counts = start, end, counts


def release_violations(shots, window_pixels, writes, commits, releases):
    """Lines up screenshots of a cycle-mode client with its log. Returns a dict: "whole" (how many screenshots show
    exactly one of its contents, whole), "torn" (screenshots that show more than one, or part of one), "released" (a
    buffer on screen although the client was told it was released), "uncommitted" (content shown before its commit:
    the client wrote into a buffer it was given back while the compositor still showed it)."""
    by_colour = {}
    for w in writes:
        by_colour.setdefault(int(w.fields["colour"], 16), []).append(w)
    found = {"whole": 0, "torn": [], "released": [], "uncommitted": []}
    for shot in shots:
        present = {c: n for c, n in shot.counts.items() if n}
        if sorted(present.values()) == [window_pixels]:
            found["whole"] += 1
        else:
            found["torn"].append(f"{shot.start:.0f}: {{{', '.join(f'{c:06x}: {n} px' for c, n in present.items())}}}")
        for colour in present:
            # The content last written in that colour before the screenshot ended (colours repeat after 64).
            candidates = [w for w in by_colour.get(colour, []) if w.t <= shot.end]
            if not candidates:
                found["uncommitted"].append(f"{shot.start:.0f}: {colour:06x} before it was written")
                continue
            content, buffer = candidates[-1].fields["content"], candidates[-1].fields["buffer"]
            commit = next((c for c in commits if c.fields["content"] == content), None)
            if commit is not None and commit.t <= shot.end:
                on_screen_since = commit.t
            else:
                found["uncommitted"].append(
                    f"content {content} (buffer {buffer}) on screen at {shot.start:.0f}-{shot.end:.0f}, committed "
                    f"{'never' if commit is None else f'at {commit.t:.0f}'}")
                # The buffer on screen is then the one last committed before, since rewritten.
                on_screen_since = max((c.t for c in commits if c.fields["buffer"] == buffer and c.t <= shot.start),
                                      default=None)
            if on_screen_since is None:
                continue
            # Released between the commit that put it there and the screenshot: released while on screen.
            release = next((r for r in releases
                            if r.fields["buffer"] == buffer and on_screen_since < r.t < shot.start), None)
            if release is not None:
                found["released"].append(
                    f"buffer {buffer} committed at {on_screen_since:.0f}, released at {release.t:.0f}, on screen at "
                    f"{shot.start:.0f}-{shot.end:.0f} (showing content {content})")
    return found
