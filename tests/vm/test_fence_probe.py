#!/usr/bin/env python3
"""Host-side checks of what the VM fence test concludes from its observations: colour counts of a screenshot agree
with a pixel-by-pixel count, and synthetic client logs of a compositor that releases correctly, one that releases
at commit, and one that shows a rewritten buffer are judged as they should be."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fence_probe import Event, Shot, ShotColours, release_violations  # noqa: E402

failures = 0


def check(ok, what):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    failures += 0 if ok else 1


def log(lines):
    return [Event(line) for line in lines.strip().splitlines()]


def split(events):
    return ([e for e in events if e.name == "write"], [e for e in events if e.name == "commit"],
            [e for e in events if e.name == "release"])


def colour(content):
    return {0: 0x2020E0, 1: 0x3C20E0, 2: 0x5820E0, 3: 0x7420E0, 4: 0x9020E0}[content]


def shot(start, end, shown):
    return ShotColours(start, end, {colour(c): n for c, n in shown.items()})


# Three buffers, a commit every 300 ms; the writes at 0 are the initial fills, later ones follow each release.
CORRECT = """
0.000 write buffer=0 content=0 colour=2020e0
0.000 write buffer=1 content=1 colour=3c20e0
0.000 write buffer=2 content=2 colour=5820e0
10.000 commit seq=0 buffer=0 content=0 colour=2020e0 fenced=1 fence=1
310.000 commit seq=1 buffer=1 content=1 colour=3c20e0 fenced=1 fence=2
450.000 release buffer=0 content=0
450.500 write buffer=0 content=3 colour=7420e0
610.000 commit seq=2 buffer=2 content=2 colour=5820e0 fenced=1 fence=3
750.000 release buffer=1 content=1
750.500 write buffer=1 content=4 colour=9020e0
910.000 commit seq=3 buffer=0 content=3 colour=7420e0 fenced=1 fence=4
"""
# Released as soon as committed: the buffer on screen is handed back, and rewritten at once.
AT_COMMIT = """
0.000 write buffer=0 content=0 colour=2020e0
0.000 write buffer=1 content=1 colour=3c20e0
0.000 write buffer=2 content=2 colour=5820e0
10.000 commit seq=0 buffer=0 content=0 colour=2020e0 fenced=1 fence=1
20.000 release buffer=0 content=0
20.500 write buffer=0 content=3 colour=7420e0
310.000 commit seq=1 buffer=1 content=1 colour=3c20e0 fenced=1 fence=2
"""


def main():
    # Colour counts against a plain count, on a PPM with a few colours and near misses.
    width, height = 37, 11
    pixels = bytearray()
    for i in range(width * height):
        pixels += bytes((0x20 + (i % 5), 0x40, 0xC0 - (i % 3) * 7))
    ppm = b"P6\n%d %d\n255\n" % (width, height) + bytes(pixels)
    image = Shot(ppm, 0.0, 1.0)
    for tolerance in (0, 2, 6, 8):
        expected = sum(1 for i in range(0, len(pixels), 3)
                       if all(abs(pixels[i + k] - v) <= tolerance for k, v in enumerate((0x22, 0x40, 0xB9))))
        check(image.count(0x2240B9, tolerance) == expected,
              f"Shot.count within {tolerance}: {image.count(0x2240B9, tolerance)} == {expected}")

    full = 19200
    writes, commits, releases = split(log(CORRECT))
    found = release_violations([shot(100, 900, {0: full}),      # content 0, buffer 0 released only at 450
                                shot(460, 1200, {1: full}),     # content 1 while buffer 0 is being reused
                                shot(800, 1500, {3: full})],    # buffer 0 again: committed at 910 during the shot
                               full, writes, commits, releases)
    check(found == {"whole": 3, "torn": [], "released": [], "uncommitted": []},
          f"a compositor that releases buffers once replaced passes: {found}")

    writes, commits, releases = split(log(AT_COMMIT))
    found = release_violations([shot(100, 900, {0: full})], full, writes, commits, releases)
    check(len(found["released"]) == 1 and not found["uncommitted"],
          f"a buffer released at commit and still on screen is caught: {found['released']}")
    found = release_violations([shot(100, 900, {3: full})], full, writes, commits, releases)
    check(len(found["released"]) == 1 and len(found["uncommitted"]) == 1,
          f"the released buffer's new content on screen before its commit is caught: {found}")
    found = release_violations([shot(100, 900, {0: 15504, 3: 3696})], full, writes, commits, releases)
    check(found["whole"] == 0 and len(found["torn"]) == 1, f"a screenshot mixing two contents is torn: {found['torn']}")
    found = release_violations([shot(100, 900, {})], full, writes, commits, releases)
    check(found["whole"] == 0 and len(found["torn"]) == 1, "a screenshot without the window is not a whole frame")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
